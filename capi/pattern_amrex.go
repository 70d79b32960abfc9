package main

// The AMReX pattern (h5bench's amrex benchmark), reachable from C and Fortran as
// pattern "amrex".
import _ "github.com/h5proxy/h5proxy/patterns/amrex"
