package e3sm

import _ "embed"

// G case (MPAS-Ocean) history file, transcribed from E3SM-IO's header_def_G_case.cpp (both
// stored versions, commits 05f163db and f09170bc, define the same canonical file: they differ
// only in ADIOS-only code): 52 variables in definition order, all double (no REC_XTYPE: j
// leaves G double), int for the masks and level indices, char xtime, each with units and
// long_name only. Decompositions: D1 nCells, D2 nEdges, D3 nCells×nVertLevels, D4
// nEdges×nVertLevels, D5 nVertices×nVertLevels, D6 nCells×nVertLevelsP1.
//
//go:embed vars/g_vars.txt
var gVars string

// gGlobals are the G file's global attributes in E3SM-IO's definition order (add_gattrs in
// header_def_G_case.cpp; the blob strategy's and ADIOS's own ones excluded): the run's
// identification, the MPAS mesh ones, the ocean model's namelist (config_*), file_id.
// Text values are as written; \n stands for a newline.
//
//go:embed vars/g_globals.txt
var gGlobals string
