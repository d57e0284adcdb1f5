//! PyO3 glue (placeholder).
