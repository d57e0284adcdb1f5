//! PLACEHOLDER — scripted-conversation harness.
