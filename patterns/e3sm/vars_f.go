package e3sm

import _ "embed"

// F case (EAM atmosphere) history files, transcribed from E3SM-IO's real headers
// (datasets/f_case_h0.txt and f_case_h1.txt: ncdump -h of E3SM output, the variables
// E3SM-IO's header_def_F_case defines). Types are the real files' (record variables are
// float there); the pattern applies E3SM-IO's own types (double unless j) on top.

// fHead are the 27 non-partitioned and 3 fixed partitioned variables both F files start
// with, in E3SM-IO's definition order since its commit b4c8ef7 (August 2023, part of its
// pull request 184, which h5bench's E3SM-IO includes: fixed-size before record variables,
// each group by type, char, int, double, for its one contiguous write buffer; the real
// files' order put lat, lon and area first). Fields: type name dims decomposition |
// attributes.
//
//go:embed vars/f_head.txt
var fHead string

// fH0 are h0's 384 partitioned record variables (321 on ncol = D2, 63 on lev × ncol =
// D3). Line: name|L|units|long_name|standard_name|cell_methods|flags with L 2 (time, ncol)
// or 3 (time, lev, ncol), units "-" for none, cell_methods empty for "time: mean", flags S
// (Sampling_Sequence = rad_lwsw), F (_FillValue and missing_value = 1e20f), w or d
// (mixing_ratio = wet or dry). Lines starting with * or + expand regular families:
// *AQ_, *DF_ and *SF list species; +species lists aerosol suffixes.
//
//go:embed vars/f_h0.txt
var fH0 string

// fH1 are h1's 21 partitioned record variables (20 on D2, U on D3).
//
//go:embed vars/f_h1.txt
var fH1 string

// fGlobals are the F files' global attributes (layouts.md 4.3, real values); the last,
// time_period_freq, depends on the file.
//
//go:embed vars/f_globals.txt
var fGlobals string
