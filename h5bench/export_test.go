package h5bench

// IntegerWarning exposes integerWarning to the package's external tests.
var IntegerWarning = integerWarning

// SleeptimeWarning exposes sleeptimeWarning to the package's external tests.
var SleeptimeWarning = sleeptimeWarning
