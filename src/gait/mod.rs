//! `rigtrip gait`: mech locomotion clip sets (STUB: being written).
