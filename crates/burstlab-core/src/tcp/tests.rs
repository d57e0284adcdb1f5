//! Scripted conversations (filled below).
