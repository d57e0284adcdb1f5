//! The scenario error: a field path and a reason.

use std::fmt;

/// A scenario error: the field path and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub reason: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}
impl std::error::Error for ScenarioError {}

/// Shorthand for [`ScenarioError::new`].
pub(super) fn e(field: impl Into<String>, reason: impl Into<String>) -> ScenarioError {
    ScenarioError::new(field, reason)
}

/// Turns an `obs` validator message `"field.path: reason"` into a [`ScenarioError`].
pub(super) fn split_field(msg: String) -> ScenarioError {
    match msg.split_once(": ") {
        Some((f, r)) => ScenarioError::new(f, r),
        None => ScenarioError::new("", msg),
    }
}
