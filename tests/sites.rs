//! Behaviour of log sites (placeholder replaced below).
