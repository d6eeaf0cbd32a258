//! A synthetic mech with gait clips (STUB: being written).
