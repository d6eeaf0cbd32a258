//! `inspect --coverage`: every byte accounted for (STUB: being written).
