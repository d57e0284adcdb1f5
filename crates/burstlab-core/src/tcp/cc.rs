//! PLACEHOLDER — congestion control.
