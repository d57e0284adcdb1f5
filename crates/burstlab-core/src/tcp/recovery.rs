//! PLACEHOLDER — loss recovery.
