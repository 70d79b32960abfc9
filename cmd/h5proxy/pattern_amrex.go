package main

// The AMReX pattern (h5bench's amrex benchmark): `h5proxy run`, `plan` and `help` know it
// once it is registered.
import _ "github.com/h5proxy/h5proxy/patterns/amrex"
