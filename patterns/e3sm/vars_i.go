package e3sm

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// I case (ELM land) history files, transcribed from E3SM-IO's header_def_I_case.cpp as
// its pull request 184 defines them (the change that makes record variables double, as the
// 8-byte _FillValues of the F files the issue measured in h5bench's E3SM-IO show): global
// attributes from add_gattrs, the 21 dimensions, then the fixed-size variables before the
// record ones. Type x is E3SM-IO's REC_XTYPE: double, float with j (the land model's own
// files, and E3SM-IO's header without that change, have these variables float).
// Decompositions: D1 lat × lon, D2 levgrnd|levdcmp × lat × lon, D3 levlak, D4 ltype, D5
// natpft (each × lat × lon).

// iGlobals are both files' global attributes in definition order; iGlobalsH1 follow them
// in h1 only.
const iGlobals = `
t title=ELM History file information
t source=E3SM Land Model
t source_id=6eb829238a
t product=model-output
t realm=land
t case=I1850GSWCNPRDCTCBC_hcru_hcru
t username=E3SM
t hostname=cori-knl
t git_version=6eb829238a
t history=created on 07/13/21 20:37:15
t institution_id=E3SM-Project
t institution=LLNL (Lawrence Livermore National Laboratory, Livermore, CA 94550, USA); ANL (Argonne National Laboratory, Argonne, IL 60439, USA); BNL (Brookhaven National Laboratory, Upton, NY 11973, USA); LANL (Los Alamos National Laboratory, Los Alamos, NM 87545, USA); LBNL (Lawrence Berkeley National Laboratory, Berkeley, CA 94720, USA); ORNL (Oak Ridge National Laboratory, Oak Ridge, TN 37831, USA); PNNL (Pacific Northwest National Laboratory, Richland, WA 99352, USA); SNL (Sandia National Laboratories, Albuquerque, NM 87185, USA). Mailing address: LLNL Climate Program, c/o David C. Bader, Principal Investigator, L-103, 7000 East Avenue, Livermore, CA 94550, USA
t contact=e3sm-data-support@listserv.llnl.gov
t Conventions=CF-1.7
t comment=NOTE: None of the variables are weighted by land fraction!
t Surface_dataset=surfdata_360x720cru_simyr1850_c180216.nc
t Initial_conditions_dataset=arbitrary initialization
t PFT_physiological_constants_dataset=clm_params_c180524.nc
i ltype_vegetated_or_bare_soil=1
i ltype_crop=2
i ltype_landice=3
i ltype_landice_multiple_elevation_classes=4
i ltype_deep_lake=5
i ltype_wetland=6
i ltype_urban_tbd=7
i ltype_urban_hd=8
i ltype_urban_md=9
`

const iGlobalsH1 = `
t Time_constant_3Dvars_filenamae=./I1850GSWCNPRDCTCBC_hcru_hcru.elm.h0.0001-01-01-00000.nc
t Time_constant_3Dvars=ZSOI:DZSOI:WATSAT:SUCSAT:BSW:HKSAT:ZLAKE:DZLAKE
`

// iFixed are the fixed-size variables of both files (5 not partitioned, 5 on D1), iFixedH0
// the 8 that h0 adds (6 on D2 over levgrnd, 2 on D3), iRecHead the 9 non-partitioned record
// variables that precede the partitioned ones. Fields as fHead's; an attribute name:t=v is
// numeric of type t.
const iFixed = `
i landmask lat,lon 1 | long_name=land/ocean mask (0.=ocean and 1.=land); _FillValue:i=-9999; missing_value:i=-9999
i pftmask lat,lon 1 | long_name=pft real/fake mask (0.=fake and 1.=real); _FillValue:i=-9999; missing_value:i=-9999
x levgrnd levgrnd 0 | long_name=coordinate soil levels; units=m
x levlak levlak 0 | long_name=coordinate lake levels; units=m
x levdcmp levdcmp 0 | long_name=coordinate soil levels; units=m
x lon lon 0 | long_name=coordinate longitude; units=degrees_east; _FillValue:f=1e36; missing_value:f=1e36
x lat lat 0 | long_name=coordinate latitude; units=degrees_north; _FillValue:f=1e36; missing_value:f=1e36
x area lat,lon 1 | long_name=grid cell areas; units=km^2; _FillValue:f=1e36; missing_value:f=1e36
x topo lat,lon 1 | long_name=grid cell topography; units=m; _FillValue:f=1e36; missing_value:f=1e36
x landfrac lat,lon 1 | long_name=land fraction; _FillValue:f=1e36; missing_value:f=1e36
`

const iFixedH0 = `
x ZSOI levgrnd,lat,lon 2 | long_name=soil depth; units=m; _FillValue:f=1e36; missing_value:f=1e36
x DZSOI levgrnd,lat,lon 2 | long_name=soil thickness; units=m; _FillValue:f=1e36; missing_value:f=1e36
x WATSAT levgrnd,lat,lon 2 | long_name=saturated soil water content (porosity); units=mm3/mm3; _FillValue:f=1e36; missing_value:f=1e36
x SUCSAT levgrnd,lat,lon 2 | long_name=saturated soil matric potential; units=mm; _FillValue:f=1e36; missing_value:f=1e36
x BSW levgrnd,lat,lon 2 | long_name=slope of soil water retention curve; units=1; _FillValue:f=1e36; missing_value:f=1e36
x HKSAT levgrnd,lat,lon 2 | long_name=saturated hydraulic conductivity; units=1; _FillValue:f=1e36; missing_value:f=1e36
x ZLAKE levlak,lat,lon 3 | long_name=lake layer node depth; units=m; _FillValue:f=1e36; missing_value:f=1e36
x DZLAKE levlak,lat,lon 3 | long_name=lake layer thickness; units=m; _FillValue:f=1e36; missing_value:f=1e36
`

const iRecHead = `
c date_written time,string_length 0 |
c time_written time,string_length 0 |
i mcdate time 0 | long_name=current date (YYYYMMDD)
i mcsec time 0 | long_name=current seconds of current date; units=s
i mdcur time 0 | long_name=current day (from base day)
i mscur time 0 | long_name=current seconds of current day
i nstep time 0 | long_name=time step
d time_bounds time,hist_interval 0 | long_name=history time interval endpoints
x time time 0 | long_name=time; units=days since 0001-01-01 00:00:00; calendar=noleap; bounds=time_bounds
`

// iRecords are the 533 partitioned record variables of both files, in definition order.
// Line: name|L|units|long_name[|standard_name|cell_methods] with L the dimensions after
// time: 1 lat,lon (D1), 2g levgrnd,lat,lon and 2d levdcmp,lat,lon (D2), 3 levlak, 4 ltype,
// 5 natpft (D3..D5, each × lat,lon); cell_methods empty for "time: mean". Every one is
// REC_XTYPE with attributes long_name, [standard_name], units, cell_methods, _FillValue and
// missing_value (1e36f).
const iRecords = `
ACTUAL_IMMOB|1|gN/m^2/s|actual N immobilization
ACTUAL_IMMOB_P|1|gP/m^2/s|actual P immobilization
ADSORBTION_P|1|gP/m^2/s|adsorb P flux
AGNPP|1|gC/m^2/s|aboveground NPP
AGWDNPP|1|gC/m^2/s|aboveground wood NPP
ALT|1|m|current active layer thickness
ALTMAX|1|m|maximum annual active layer thickness
ALTMAX_LASTYEAR|1|m|maximum prior year active layer thickness
AR|1|gC/m^2/s|autotrophic respiration (MR + GR)
AVAILC|1|gC/m^2/s|C flux available for allocation
AVAIL_RETRANSP|1|gP/m^2/s|P flux available from retranslocation pool
BAF_CROP|1|proportion/sec|fractional area burned for crop
BAF_PEATF|1|proportion/sec|fractional area burned in peatland
BCDEP|1|kg/m^2/s|total BC deposition (dry+wet) from atmosphere
BGNPP|1|gC/m^2/s|belowground NPP
BIOCHEM_PMIN|1|gP/m^2/s|biochemical rate of P mineralization
BIOCHEM_PMIN_TO_PLANT|1|gP/m^2/s|plant uptake of biochemical P mineralization
BTRAN|1|1|transpiration beta factor
BUILDHEAT|1|W/m^2|heat flux from urban building interior to walls and roof
CH4PROD|1|gC/m2/s|Gridcell total production of CH4
CH4_SURF_AERE_SAT|1|mol/m2/s|aerenchyma surface CH4 flux for inundated area; (+ to atm)
CH4_SURF_AERE_UNSAT|1|mol/m2/s|aerenchyma surface CH4 flux for non-inundated area; (+ to atm)
CH4_SURF_DIFF_SAT|1|mol/m2/s|diffusive surface CH4 flux for inundated / lake area; (+ to atm)
CH4_SURF_DIFF_UNSAT|1|mol/m2/s|diffusive surface CH4 flux for non-inundated area; (+ to atm)
CH4_SURF_EBUL_SAT|1|mol/m2/s|ebullition surface CH4 flux for inundated / lake area; (+ to atm)
CH4_SURF_EBUL_UNSAT|1|mol/m2/s|ebullition surface CH4 flux for non-inundated area; (+ to atm)
COL_PTRUNC|1|gP/m^2|column-level sink for P truncation
CONC_CH4_SAT|2g|mol/m3|CH4 soil Concentration for inundated / lake area
CONC_CH4_UNSAT|2g|mol/m3|CH4 soil Concentration for non-inundated area
CONC_O2_SAT|2g|mol/m3|O2 soil Concentration for inundated / lake area
CONC_O2_UNSAT|2g|mol/m3|O2 soil Concentration for non-inundated area
CPOOL|1|gC/m^2|temporary photosynthate C pool
CWDC|1|gC/m^2|CWD C
CWDC_HR|1|gC/m^2/s|coarse woody debris C heterotrophic respiration
CWDC_LOSS|1|gC/m^2/s|coarse woody debris C loss
CWDC_TO_LITR2C|1|gC/m^2/s|decomp. of coarse woody debris C to litter 2 C
CWDC_TO_LITR3C|1|gC/m^2/s|decomp. of coarse woody debris C to litter 3 C
CWDC_vr|2d|gC/m^3|CWD C (vertically resolved)
CWDN|1|gN/m^2|CWD N
CWDN_TO_LITR2N|1|gN/m^2|decomp. of coarse woody debris N to litter 2 N
CWDN_TO_LITR3N|1|gN/m^2|decomp. of coarse woody debris N to litter 3 N
CWDN_vr|2d|gN/m^3|CWD N (vertically resolved)
CWDP|1|gP/m^2|CWD P
CWDP_TO_LITR2P|1|gP/m^2|decomp. of coarse woody debris P to litter 2 N
CWDP_TO_LITR3P|1|gP/m^2|decomp. of coarse woody debris P to litter 3 N
CWDP_vr|2d|gP/m^3|CWD P (vertically resolved)
DEADCROOTC|1|gC/m^2|dead coarse root C
DEADCROOTN|1|gN/m^2|dead coarse root N
DEADCROOTP|1|gP/m^2|dead coarse root P
DEADSTEMC|1|gC/m^2|dead stem C
DEADSTEMN|1|gN/m^2|dead stem N
DEADSTEMP|1|gP/m^2|dead stem P
DEFICIT|1|mm/s|runoff supply deficit
DENIT|1|gN/m^2/s|total rate of denitrification
DESORPTION_P|1|gP/m^2/s|desorp P flux
DISPVEGC|1|gC/m^2|displayed veg carbon, excluding storage and cpool
DISPVEGN|1|gN/m^2|displayed vegetation nitrogen
DISPVEGP|1|gP/m^2|displayed vegetation phosphorus
DSTDEP|1|kg/m^2/s|total dust deposition (dry+wet) from atmosphere
DSTFLXT|1|kg/m2/s|total surface dust emission
DWB|1|mm/s|net change in total water mass
DWT_CONV_CFLUX_DRIBBLED|1|gC/m^2/s|conversion C flux (immediate loss to atm), dribbled throughout the year
DWT_CONV_CFLUX_GRC|1|gC/m^2/s|conversion C flux (immediate loss to atm) (0 at all times except first timestep of year)
DWT_CONV_NFLUX_GRC|1|gN/m^2/s|conversion C flux (immediate loss to atm) (0 at all times except first timestep of year)
DWT_CONV_PFLUX_GRC|1|gP/m^2/s|conversion C flux (immediate loss to atm) (0 at all times except first timestep of year)
DWT_SLASH_CFLUX|1|gC/m^2/s|slash C flux to litter and CWD due to land use
DWT_SLASH_NFLUX|1|gN/m^2/s|slash N flux to litter and CWD due to land use
DWT_SLASH_PFLUX|1|gP/m^2/s|slash P flux to litter and CWD due to land use
EFLX_DYNBAL|1|W/m^2|dynamic land cover change conversion energy flux
EFLX_GRND_LAKE|1|W/m^2|net heat flux into lake/snow surface, excluding light transmission
EFLX_LH_TOT|1|W/m^2|total latent heat flux [+ to atm]
EFLX_LH_TOT_R|1|W/m^2|Rural total evaporation
EFLX_LH_TOT_U|1|W/m^2|Urban total evaporation
ELAI|1|m^2/m^2|exposed one-sided leaf area index
ER|1|gC/m^2/s|total ecosystem respiration, autotrophic + heterotrophic
ERRH2O|1|mm|total water conservation error
ERRH2OSNO|1|mm|imbalance in snow depth (liquid water)
ERRSEB|1|W/m^2|surface energy conservation error
ERRSOI|1|W/m^2|soil/lake energy conservation error
ERRSOL|1|W/m^2|solar radiation conservation error
ESAI|1|m^2/m^2|exposed one-sided stem area index
FAREA_BURNED|1|proportion|timestep fractional area burned
FCEV|1|W/m^2|canopy evaporation
FCH4|1|kgC/m2/s|Gridcell surface CH4 flux to atmosphere (+ to atm)
FCH4TOCO2|1|gC/m2/s|Gridcell oxidation of CH4 to CO2
FCH4_DFSAT|1|kgC/m2/s|CH4 additional flux due to changing fsat, vegetated landunits only
FCOV|1|unitless|fractional impermeable area
FCTR|1|W/m^2|canopy transpiration
FGEV|1|W/m^2|ground evaporation
FGR|1|W/m^2|heat flux into soil/snow including snow melt and lake / snow light transmission
FGR12|1|W/m^2|heat flux between soil layers 1 and 2
FGR_R|1|W/m^2|Rural heat flux into soil/snow including snow melt and snow light transmission
FGR_U|1|W/m^2|Urban heat flux into soil/snow including snow melt
FH2OSFC|1|1|fraction of ground covered by surface water
FINUNDATED|1|1|fractional inundated area of vegetated columns
FINUNDATED_LAG|1|1|time-lagged inundated fraction of vegetated columns
FIRA|1|W/m^2|net infrared (longwave) radiation
FIRA_R|1|W/m^2|Rural net infrared (longwave) radiation
FIRA_U|1|W/m^2|Urban net infrared (longwave) radiation
FIRE|1|W/m^2|emitted infrared (longwave) radiation
FIRE_R|1|W/m^2|Rural emitted infrared (longwave) radiation
FIRE_U|1|W/m^2|Urban emitted infrared (longwave) radiation
FLDS|1|W/m^2|atmospheric longwave radiation
FPG|1|proportion|fraction of potential gpp due to N limitation
FPG_P|1|proportion|fraction of potential gpp due to P limitation
FPI|1|proportion|fraction of potential immobilization of nitrogen
FPI_P|1|proportion|fraction of potential immobilization of phosphorus
FPI_P_vr|2d|proportion|fraction of potential immobilization of phosphorus
FPI_vr|2d|proportion|fraction of potential immobilization of nitrogen
FPSN|1|umol/m2s|photosynthesis
FPSN_WC|1|umol/m2s|Rubisco-limited photosynthesis
FPSN_WJ|1|umol/m2s|RuBP-limited photosynthesis
FPSN_WP|1|umol/m2s|Product-limited photosynthesis
FROOTC|1|gC/m^2|fine root C
FROOTC_ALLOC|1|gC/m^2/s|fine root C allocation
FROOTC_LOSS|1|gC/m^2/s|fine root C loss
FROOTN|1|gN/m^2|fine root N
FROOTP|1|gP/m^2|fine root P
FROST_TABLE|1|m|frost table depth (vegetated landunits only)
FSA|1|W/m^2|absorbed solar radiation
FSAT|1|unitless|fractional area with water table at surface
FSA_R|1|W/m^2|Rural absorbed solar radiation
FSA_U|1|W/m^2|Urban absorbed solar radiation
FSDS|1|W/m^2|atmospheric incident solar radiation
FSDSND|1|W/m^2|direct nir incident solar radiation
FSDSNDLN|1|W/m^2|direct nir incident solar radiation at local noon
FSDSNI|1|W/m^2|diffuse nir incident solar radiation
FSDSVD|1|W/m^2|direct vis incident solar radiation
FSDSVDLN|1|W/m^2|direct vis incident solar radiation at local noon
FSDSVI|1|W/m^2|diffuse vis incident solar radiation
FSDSVILN|1|W/m^2|diffuse vis incident solar radiation at local noon
FSH|1|W/m^2|sensible heat
FSH_G|1|W/m^2|sensible heat from ground
FSH_NODYNLNDUSE|1|W/m^2|sensible heat not including correction for land use change
FSH_R|1|W/m^2|Rural sensible heat
FSH_U|1|W/m^2|Urban sensible heat
FSH_V|1|W/m^2|sensible heat from veg
FSM|1|W/m^2|snow melt heat flux
FSM_R|1|W/m^2|Rural snow melt heat flux
FSM_U|1|W/m^2|Urban snow melt heat flux
FSNO|1|1|fraction of ground covered by snow
FSNO_EFF|1|1|effective fraction of ground covered by snow
FSR|1|W/m^2|reflected solar radiation
FSRND|1|W/m^2|direct nir reflected solar radiation
FSRNDLN|1|W/m^2|direct nir reflected solar radiation at local noon
FSRNI|1|W/m^2|diffuse nir reflected solar radiation
FSRVD|1|W/m^2|direct vis reflected solar radiation
FSRVDLN|1|W/m^2|direct vis reflected solar radiation at local noon
FSRVI|1|W/m^2|diffuse vis reflected solar radiation
F_CO2_SOIL|1|gC/m^2/s|total soil-atm. CO2 exchange
F_CO2_SOIL_vr|2d|gC/m^3/s|total vertically resolved soil-atm. CO2 exchange
F_DENIT|1|gN/m^2/s|denitrification flux
F_DENIT_vr|2d|gN/m^3/s|denitrification flux
F_N2O_DENIT|1|gN/m^2/s|denitrification N2O flux
F_N2O_NIT|1|gN/m^2/s|nitrification N2O flux
F_NIT|1|gN/m^2/s|nitrification flux
F_NIT_vr|2d|gN/m^3/s|nitrification flux
GC_HEAT1|1|J/m^2|initial gridcell total heat content
GC_ICE1|1|mm|initial gridcell total ice content
GC_LIQ1|1|mm|initial gridcell total liq content
GPP|1|gC/m^2/s|gross primary production
GR|1|gC/m^2/s|total growth respiration
GROSS_NMIN|1|gN/m^2/s|gross rate of N mineralization
GROSS_PMIN|1|gP/m^2/s|gross rate of P mineralization
H2OCAN|1|mm|intercepted water
H2OSFC|1|mm|surface water depth
H2OSNO|1|mm|snow depth (liquid water)
H2OSNO_TOP|1|kg/m2|mass of snow in top snow layer
H2OSOI|2g|mm3/mm3|volumetric soil water (vegetated landunits only)
HC|1|MJ/m2|heat content of soil/snow/lake
HCSOI|1|MJ/m2|soil heat content
HEAT_FROM_AC|1|W/m^2|sensible heat flux put into canyon due to heat removed from air conditioning
HR|1|gC/m^2/s|total heterotrophic respiration
HR_vr|2d|gC/m^3/s|total vertically resolved heterotrophic respiration
HTOP|1|m|canopy top
INT_SNOW|1|mm|accumulated swe (vegetated landunits only)
LABILEP|1|gP/m^2|soil Labile P
LABILEP_TO_SECONDP|1|gP/m^2/s|LABILE P TO SECONDARY MINERAL P
LABILEP_vr|2d|gp/m^3|soil labile P (vert. res.)
LAISHA|1|1|shaded projected leaf area index
LAISUN|1|1|sunlit projected leaf area index
LAKEICEFRAC|3|unitless|lake layer ice mass fraction
LAKEICETHICK|1|m|thickness of lake ice (including physical expansion on freezing)
LAND_UPTAKE|1|gC/m^2/s|NEE minus LAND_USE_FLUX, negative for update
LAND_USE_FLUX|1|gC/m^2/s|total C emitted from land cover conversion and wood product pools
LEAFC|1|gC/m^2|leaf C
LEAFC_ALLOC|1|gC/m^2/s|leaf C allocation
LEAFC_LOSS|1|gC/m^2/s|leaf C loss
LEAFC_TO_LITTER|1|gC/m^2/s|leaf C litterfall
LEAFN|1|gN/m^2|leaf N
LEAFP|1|gP/m^2|leaf P
LEAF_MR|1|gC/m^2/s|leaf maintenance respiration
LFC2|1|per sec|conversion area fraction of BET and BDT that burned
LITFALL|1|gC/m^2/s|litterfall (leaves and fine roots)
LITHR|1|gC/m^2/s|litter heterotrophic respiration
LITR1C|1|gC/m^2|LITR1 C
LITR1C_TO_SOIL1C|1|gC/m^2/s|decomp. of litter 1 C to soil 1 C
LITR1C_vr|2d|gC/m^3|LITR1 C (vertically resolved)
LITR1N|1|gN/m^2|LITR1 N
LITR1N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|litter 1 N tendency due to vertical transport
LITR1N_TO_SOIL1N|1|gN/m^2|decomp. of litter 1 N to soil 1 N
LITR1N_vr|2d|gN/m^3|LITR1 N (vertically resolved)
LITR1P|1|gP/m^2|LITR1 P
LITR1P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|litter 1 P tendency due to vertical transport
LITR1P_TO_SOIL1P|1|gP/m^2|decomp. of litter 1 P to soil 1 N
LITR1P_vr|2d|gP/m^3|LITR1 P (vertically resolved)
LITR1_HR|1|gC/m^2/s|Het. Resp. from litter 1
LITR2C|1|gC/m^2|LITR2 C
LITR2C_TO_SOIL2C|1|gC/m^2/s|decomp. of litter 2 C to soil 2 C
LITR2C_vr|2d|gC/m^3|LITR2 C (vertically resolved)
LITR2N|1|gN/m^2|LITR2 N
LITR2N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|litter 2 N tendency due to vertical transport
LITR2N_TO_SOIL2N|1|gN/m^2|decomp. of litter 2 N to soil 2 N
LITR2N_vr|2d|gN/m^3|LITR2 N (vertically resolved)
LITR2P|1|gP/m^2|LITR2 P
LITR2P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|litter 2 P tendency due to vertical transport
LITR2P_TO_SOIL2P|1|gP/m^2|decomp. of litter 2 P to soil 2 N
LITR2P_vr|2d|gP/m^3|LITR2 P (vertically resolved)
LITR2_HR|1|gC/m^2/s|Het. Resp. from litter 2
LITR3C|1|gC/m^2|LITR3 C
LITR3C_TO_SOIL3C|1|gC/m^2/s|decomp. of litter 3 C to soil 3 C
LITR3C_vr|2d|gC/m^3|LITR3 C (vertically resolved)
LITR3N|1|gN/m^2|LITR3 N
LITR3N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|litter 3 N tendency due to vertical transport
LITR3N_TO_SOIL3N|1|gN/m^2|decomp. of litter 3 N to soil 3 N
LITR3N_vr|2d|gN/m^3|LITR3 N (vertically resolved)
LITR3P|1|gP/m^2|LITR3 P
LITR3P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|litter 3 P tendency due to vertical transport
LITR3P_TO_SOIL3P|1|gP/m^2|decomp. of litter 3 P to soil 3 N
LITR3P_vr|2d|gP/m^3|LITR3 P (vertically resolved)
LITR3_HR|1|gC/m^2/s|Het. Resp. from litter 3
LITTERC|1|gC/m^2|litter C
LITTERC_HR|1|gC/m^2/s|litter C heterotrophic respiration
LITTERC_LOSS|1|gC/m^2/s|litter C loss
LIVECROOTC|1|gC/m^2|live coarse root C
LIVECROOTN|1|gN/m^2|live coarse root N
LIVECROOTP|1|gP/m^2|live coarse root P
LIVESTEMC|1|gC/m^2|live stem C
LIVESTEMN|1|gN/m^2|live stem N
LIVESTEMP|1|gP/m^2|live stem P
MR|1|gC/m^2/s|maintenance respiration
M_LITR1C_TO_LEACHING|1|gC/m^2/s|litter 1 C leaching loss
M_LITR2C_TO_LEACHING|1|gC/m^2/s|litter 2 C leaching loss
M_LITR3C_TO_LEACHING|1|gC/m^2/s|litter 3 C leaching loss
M_SOIL1C_TO_LEACHING|1|gC/m^2/s|soil 1 C leaching loss
M_SOIL2C_TO_LEACHING|1|gC/m^2/s|soil 2 C leaching loss
M_SOIL3C_TO_LEACHING|1|gC/m^2/s|soil 3 C leaching loss
M_SOIL4C_TO_LEACHING|1|gC/m^2/s|soil 4 C leaching loss
NBP|1|gC/m^2/s|net biome production, includes fire, landuse, and harvest flux, positive for sink
NDEPLOY|1|gN/m^2/s|total N deployed in new growth
NDEP_TO_SMINN|1|gN/m^2/s|atmospheric N deposition to soil mineral N
NEE|1|gC/m^2/s|net ecosystem exchange of carbon, includes fire, landuse, harvest, and hrv_xsmrpool flux, positive for source
NEM|1|gC/m2/s|Gridcell net adjustment to NEE passed to atm. for methane production
NEP|1|gC/m^2/s|net ecosystem production, excludes fire, landuse, and harvest flux, positive for sink
NET_NMIN|1|gN/m^2/s|net rate of N mineralization
NET_PMIN|1|gP/m^2/s|net rate of P mineralization
NFIRE|1|counts/km2/sec|fire counts valid only in Reg.C
NFIX_TO_SMINN|1|gN/m^2/s|symbiotic/asymbiotic N fixation to soil mineral N
NPP|1|gC/m^2/s|net primary production
OCCLP|1|gP/m^2|soil occluded P
OCCLP_vr|2d|gp/m^3|soil occluded P (vert. res.)
OCDEP|1|kg/m^2/s|total OC deposition (dry+wet) from atmosphere
O_SCALAR|2d|1|fraction by which decomposition is reduced due to anoxia
PARVEGLN|1|W/m^2|absorbed par by vegetation at local noon
PBOT|1|Pa|atmospheric pressure
PCH4|1|Pa|atmospheric partial pressure of CH4
PCO2|1|Pa|atmospheric partial pressure of CO2
PCT_LANDUNIT|4|%|% of each landunit on grid cell
PCT_NAT_PFT|5|%|% of each PFT on the natural vegetation (i.e., soil) landunit
PDEPLOY|1|gP/m^2/s|total P deployed in new growth
PDEP_TO_SMINP|1|gP/m^2/s|atmospheric P deposition to soil mineral P
PFT_FIRE_CLOSS|1|gC/m^2/s|total patch-level fire C loss for non-peat fires outside land-type converted region
PFT_FIRE_NLOSS|1|gN/m^2/s|total pft-level fire N loss
PLANT_CALLOC|1|gC/m^2/s|total allocated C flux
PLANT_NDEMAND|1|gN/m^2/s|N flux required to support initial GPP
PLANT_NDEMAND_COL|1|gN/m^2/s|N flux required to support initial GPP
PLANT_PALLOC|1|gP/m^2/s|total allocated P flux
PLANT_PDEMAND|1|gP/m^2/s|P flux required to support initial GPP
PLANT_PDEMAND_COL|1|gN/m^2/s|P flux required to support initial GPP
POTENTIAL_IMMOB|1|gN/m^2/s|potential N immobilization
POTENTIAL_IMMOB_P|1|gP/m^2/s|potential P immobilization
POT_F_DENIT|1|gN/m^2/s|potential denitrification flux
POT_F_NIT|1|gN/m^2/s|potential nitrification flux
PRIMP|1|gP/m^2|soil primary P
PRIMP_TO_LABILEP|1|gP/m^2/s|PRIMARY MINERAL P TO LABILE P
PRIMP_vr|2d|gp/m^3|soil primary P (vert. res.)
PROD1P_LOSS|1|gP/m^2/s|loss from 1-yr crop product pool
PSNSHA|1|umolCO2/m^2/s|shaded leaf photosynthesis
PSNSHADE_TO_CPOOL|1|gC/m^2/s|C fixation from shaded canopy
PSNSUN|1|umolCO2/m^2/s|sunlit leaf photosynthesis
PSNSUN_TO_CPOOL|1|gC/m^2/s|C fixation from sunlit canopy
Q2M|1|kg/kg|2m specific humidity
QBOT|1|kg/kg|atmospheric specific humidity
QCHARGE|1|mm/s|aquifer recharge rate (vegetated landunits only)
QDRAI|1|mm/s|sub-surface drainage
QDRAI_PERCH|1|mm/s|perched wt drainage
QDRAI_XS|1|mm/s|saturation excess drainage
QDRIP|1|mm/s|throughfall
QFLOOD|1|mm/s|runoff from river flooding
QFLX_ICE_DYNBAL|1|mm/s|ice dynamic land cover change conversion runoff flux
QFLX_LIQ_DYNBAL|1|mm/s|liq dynamic land cover change conversion runoff flux
QH2OSFC|1|mm/s|surface water runoff
QINFL|1|mm/s|infiltration
QINTR|1|mm/s|interception
QIRRIG_GRND|1|mm/s|Groundwater irrigation
QIRRIG_ORIG|1|mm/s|Original total irrigation water demand (surface + ground)
QIRRIG_REAL|1|mm/s|actual water added through irrigation (surface + ground)
QIRRIG_SURF|1|mm/s|Surface water irrigation
QIRRIG_WM|1|mm/s|Surface water irrigation demand sent to MOSART/WM
QOVER|1|mm/s|surface runoff
QOVER_LAG|1|mm/s|time-lagged surface runoff for soil columns
QRGWL|1|mm/s|surface runoff at glaciers (liquid only), wetlands, lakes
QRUNOFF|1|mm/s|total liquid runoff (does not include QSNWCPICE)
QRUNOFF_NODYNLNDUSE|1|mm/s|total liquid runoff (does not include QSNWCPICE) not including correction for land use change
QRUNOFF_R|1|mm/s|Rural total runoff
QRUNOFF_U|1|mm/s|Urban total runoff
QSNOMELT|1|mm/s|snow melt
QSNWCPICE|1|mm/s|excess snowfall due to snow capping
QSNWCPICE_NODYNLNDUSE|1|mm H2O/s|excess snowfall due to snow capping not including correction for land use change
QSOIL|1|mm/s|Ground evaporation (soil/snow evaporation + soil/snow sublimation - dew)
QVEGE|1|mm/s|canopy evaporation
QVEGT|1|mm/s|canopy transpiration
RAIN|1|mm/s|atmospheric rain
RETRANSN|1|gN/m^2|plant pool of retranslocated N
RETRANSN_TO_NPOOL|1|gN/m^2/s|deployment of retranslocated N
RETRANSP|1|gP/m^2|plant pool of retranslocated P
RETRANSP_TO_PPOOL|1|gP/m^2/s|deployment of retranslocated P
RH2M|1|%|2m relative humidity
RH2M_R|1|%|Rural 2m specific humidity
RH2M_U|1|%|Urban 2m relative humidity
RR|1|gC/m^2/s|root respiration (fine root MR + total root GR)
SABG|1|W/m^2|solar rad absorbed by ground
SABG_PEN|1|watt/m^2|Rural solar rad penetrating top soil or snow layer
SABV|1|W/m^2|solar rad absorbed by veg
SCALARAVG_vr|2d|fraction|average of decomposition scalar
SECONDP|1|gP/m^2|soil secondary P
SECONDP_TO_LABILEP|1|gP/m^2/s|SECONDARY MINERAL P TO LABILE P
SECONDP_TO_OCCLP|1|gP/m^2/s|SECONDARY MINERAL P TO OCCLUDED P
SECONDP_vr|2d|gp/m^3|soil secondary P (vert. res.)
SEEDC_GRC|1|gC/m^2|pool for seeding new PFTs via dynamic landcover
SMINN|1|gN/m^2|soil mineral N
SMINN_TO_NPOOL|1|gN/m^2/s|deployment of soil mineral N uptake
SMINN_TO_PLANT|1|gN/m^2/s|plant uptake of soil mineral N
SMINN_TO_SOIL1N_L1|1|gN/m^2|mineral N flux for decomp. of LITR1to SOIL1
SMINN_TO_SOIL2N_L2|1|gN/m^2|mineral N flux for decomp. of LITR2to SOIL2
SMINN_TO_SOIL2N_S1|1|gN/m^2|mineral N flux for decomp. of SOIL1to SOIL2
SMINN_TO_SOIL3N_L3|1|gN/m^2|mineral N flux for decomp. of LITR3to SOIL3
SMINN_TO_SOIL3N_S2|1|gN/m^2|mineral N flux for decomp. of SOIL2to SOIL3
SMINN_TO_SOIL4N_S3|1|gN/m^2|mineral N flux for decomp. of SOIL3to SOIL4
SMINP|1|gP/m^2|soil mineral P
SMINP_LEACHED|1|gP/m^2/s|soil mineral P pool loss to leaching
SMINP_TO_PLANT|1|gP/m^2/s|plant uptake of soil mineral P
SMINP_TO_PPOOL|1|gP/m^2/s|deployment of soil mineral P uptake
SMINP_TO_SOIL1P_L1|1|gP/m^2|mineral P flux for decomp. of LITR1to SOIL1
SMINP_TO_SOIL2P_L2|1|gP/m^2|mineral P flux for decomp. of LITR2to SOIL2
SMINP_TO_SOIL2P_S1|1|gP/m^2|mineral P flux for decomp. of SOIL1to SOIL2
SMINP_TO_SOIL3P_L3|1|gP/m^2|mineral P flux for decomp. of LITR3to SOIL3
SMINP_TO_SOIL3P_S2|1|gP/m^2|mineral P flux for decomp. of SOIL2to SOIL3
SMINP_TO_SOIL4P_S3|1|gP/m^2|mineral P flux for decomp. of SOIL3to SOIL4
SMINP_vr|2d|gp/m^3|soil mineral P (vert. res.)
SMIN_NH4|1|gN/m^2|soil mineral NH4
SMIN_NH4_vr|2d|gN/m^3|soil mineral NH4 (vert. res.)
SMIN_NO3|1|gN/m^2|soil mineral NO3
SMIN_NO3_LEACHED|1|gN/m^2/s|soil NO3 pool loss to leaching
SMIN_NO3_RUNOFF|1|gN/m^2/s|soil NO3 pool loss to runoff
SMIN_NO3_vr|2d|gN/m^3|soil mineral NO3 (vert. res.)
SNOBCMCL|1|kg/m2|mass of BC in snow column
SNOBCMSL|1|kg/m2|mass of BC in top snow layer
SNODSTMCL|1|kg/m2|mass of dust in snow column
SNODSTMSL|1|kg/m2|mass of dust in top snow layer
SNOINTABS|1|%|Percent of incoming solar absorbed by lower snow layers
SNOOCMCL|1|kg/m2|mass of OC in snow column
SNOOCMSL|1|kg/m2|mass of OC in top snow layer
SNOW|1|mm/s|atmospheric snow
SNOWDP|1|m|gridcell mean snow height
SNOWICE|1|kg/m2|snow ice
SNOWLIQ|1|kg/m2|snow liquid water
SNOW_DEPTH|1|m|snow height of snow covered area
SNOW_SINKS|1|mm/s|snow sinks (liquid water)
SNOW_SOURCES|1|mm/s|snow sources (liquid water)
SOIL1C|1|gC/m^2|SOIL1 C
SOIL1C_TO_SOIL2C|1|gC/m^2/s|decomp. of soil 1 C to soil 2 C
SOIL1C_vr|2d|gC/m^3|SOIL1 C (vertically resolved)
SOIL1N|1|gN/m^2|SOIL1 N
SOIL1N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|soil 1 N tendency due to vertical transport
SOIL1N_TO_SOIL2N|1|gN/m^2|decomp. of soil 1 N to soil 2 N
SOIL1N_vr|2d|gN/m^3|SOIL1 N (vertically resolved)
SOIL1P|1|gP/m^2|SOIL1 P
SOIL1P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|soil 1 P tendency due to vertical transport
SOIL1P_TO_SOIL2P|1|gP/m^2|decomp. of soil 1 P to soil 2 N
SOIL1P_vr|2d|gP/m^3|SOIL1 P (vertically resolved)
SOIL1_HR|1|gC/m^2/s|Het. Resp. from soil 1
SOIL2C|1|gC/m^2|SOIL2 C
SOIL2C_TO_SOIL3C|1|gC/m^2/s|decomp. of soil 2 C to soil 3 C
SOIL2C_vr|2d|gC/m^3|SOIL2 C (vertically resolved)
SOIL2N|1|gN/m^2|SOIL2 N
SOIL2N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|soil 2 N tendency due to vertical transport
SOIL2N_TO_SOIL3N|1|gN/m^2|decomp. of soil 2 N to soil 3 N
SOIL2N_vr|2d|gN/m^3|SOIL2 N (vertically resolved)
SOIL2P|1|gP/m^2|SOIL2 P
SOIL2P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|soil 2 P tendency due to vertical transport
SOIL2P_TO_SOIL3P|1|gP/m^2|decomp. of soil 2 P to soil 3 N
SOIL2P_vr|2d|gP/m^3|SOIL2 P (vertically resolved)
SOIL2_HR|1|gC/m^2/s|Het. Resp. from soil 2
SOIL3C|1|gC/m^2|SOIL3 C
SOIL3C_TO_SOIL4C|1|gC/m^2/s|decomp. of soil 3 C to soil 4 C
SOIL3C_vr|2d|gC/m^3|SOIL3 C (vertically resolved)
SOIL3N|1|gN/m^2|SOIL3 N
SOIL3N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|soil 3 N tendency due to vertical transport
SOIL3N_TO_SOIL4N|1|gN/m^2|decomp. of soil 3 N to soil 4 N
SOIL3N_vr|2d|gN/m^3|SOIL3 N (vertically resolved)
SOIL3P|1|gP/m^2|SOIL3 P
SOIL3P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|soil 3 P tendency due to vertical transport
SOIL3P_TO_SOIL4P|1|gP/m^2|decomp. of soil 3 P to soil 4 N
SOIL3P_vr|2d|gP/m^3|SOIL3 P (vertically resolved)
SOIL3_HR|1|gC/m^2/s|Het. Resp. from soil 3
SOIL4C|1|gC/m^2|SOIL4 C
SOIL4C_vr|2d|gC/m^3|SOIL4 C (vertically resolved)
SOIL4N|1|gN/m^2|SOIL4 N
SOIL4N_TNDNCY_VERT_TRANS|2d|gN/m^3/s|soil 4 N tendency due to vertical transport
SOIL4N_TO_SMINN|1|gN/m^2|mineral N flux for decomp. of SOIL4
SOIL4N_vr|2d|gN/m^3|SOIL4 N (vertically resolved)
SOIL4P|1|gP/m^2|SOIL4 P
SOIL4P_TNDNCY_VERT_TRANS|2d|gP/m^3/s|soil 4 P tendency due to vertical transport
SOIL4P_TO_SMINP|1|gP/m^2|mineral P flux for decomp. of SOIL4
SOIL4P_vr|2d|gP/m^3|SOIL4 P (vertically resolved)
SOIL4_HR|1|gC/m^2/s|Het. Resp. from soil 4
SOILC|1|gC/m^2|soil C
SOILC_HR|1|gC/m^2/s|soil C heterotrophic respiration
SOILC_LOSS|1|gC/m^2/s|soil C loss
SOILICE|2g|kg/m2|soil ice (vegetated landunits only)
SOILICE_ICE|2g|kg/m2|soil ice (ice landunits only)
SOILLIQ|2g|kg/m2|soil liquid water (vegetated landunits only)
SOILLIQ_ICE|2g|kg/m2|soil liquid water (ice landunits only)
SOILPSI|2g|MPa|soil water potential in each soil layer
SOILWATER_10CM|1|kg/m2|soil liquid water + ice in top 10cm of soil (veg landunits only)|mass_content_of_water_in_soil_layer|
SOLUTIONP|1|gP/m^2|soil solution P
SOLUTIONP_vr|2d|gp/m^3|soil solution P (vert. res.)
SOMHR|1|gC/m^2/s|soil organic matter heterotrophic respiration
SOM_C_LEACHED|1|gC/m^2/s|total flux of C from SOM pools due to leaching
SR|1|gC/m^2/s|total soil respiration (HR + root resp)
STORVEGC|1|gC/m^2|stored vegetation carbon, excluding cpool
STORVEGN|1|gN/m^2|stored vegetation nitrogen
STORVEGP|1|gP/m^2|stored vegetation phosphorus
SUPPLEMENT_TO_SMINN|1|gN/m^2/s|supplemental N supply
SUPPLEMENT_TO_SMINP|1|gP/m^2/s|supplemental P supply
SUPPLY|1|mm/s|runoff supply for land use
SoilAlpha|1|1|factor limiting ground evap
SoilAlpha_U|1|1|urban factor limiting ground evap
TAUX|1|kg/m/s^2|zonal surface stress
TAUY|1|kg/m/s^2|meridional surface stress
TBOT|1|K|atmospheric air temperature
TBUILD|1|K|internal urban building temperature
TCS_MONTH_BEGIN|1|mm|total carbon storage at the beginning of a month||point
TCS_MONTH_END|1|mm|total carbon storage at the end of a month||point
TG|1|K|ground temperature
TG_R|1|K|Rural ground temperature
TG_U|1|K|Urban ground temperature
TH2OSFC|1|K|surface water temperature
THBOT|1|K|atmospheric air potential temperature
TKE1|1|W/(mK)|top lake level eddy thermal conductivity
TLAI|1|1|total projected leaf area index
TLAKE|3|K|lake temperature
TOTCOLC|1|gC/m^2|total column carbon, incl veg and cpool but excl product pools
TOTCOLCH4|1|gC/m2|total belowground CH4, (0 for non-lake special landunits)
TOTCOLN|1|gN/m^2|total column-level N but excl product pools
TOTCOLP|1|gP/m^2|total column-level P but excl product pools
TOTECOSYSC|1|gC/m^2|total ecosystem carbon, incl veg but excl cpool but excl product pools
TOTECOSYSN|1|gN/m^2|total ecosystem N but excl product pools
TOTECOSYSP|1|gP/m^2|total ecosystem P but excl product pools
TOTLITC|1|gC/m^2|total litter carbon
TOTLITC_1m|1|gC/m^2|total litter carbon to 1 meter depth
TOTLITN|1|gN/m^2|total litter N
TOTLITP|1|gP/m^2|total litter P
TOTLITP_1m|1|gP/m^2|total litter P to 1 meter
TOTPFTC|1|gC/m^2|total patch-level carbon, including cpool
TOTPFTN|1|gN/m^2|total PFT-level nitrogen
TOTPFTP|1|gP/m^2|total PFT-level phosphorus
TOTSOMC|1|gC/m^2|total soil organic matter carbon
TOTSOMC_1m|1|gC/m^2|total soil organic matter carbon to 1 meter depth
TOTSOMN|1|gN/m^2|total soil organic matter N
TOTSOMP|1|gP/m^2|total soil organic matter P
TOTSOMP_1m|1|gP/m^2|total soil organic matter P to 1 meter
TOTVEGC|1|gC/m^2|total vegetation carbon, excluding cpool
TOTVEGC_ABG|1|gC/m^2|total aboveground vegetation carbon, excluding cpool
TOTVEGN|1|gN/m^2|total vegetation nitrogen
TOTVEGP|1|gP/m^2|total vegetation phosphorus
TREFMNAV|1|K|daily minimum of average 2-m temperature
TREFMNAV_R|1|K|Rural daily minimum of average 2-m temperature
TREFMNAV_U|1|K|Urban daily minimum of average 2-m temperature
TREFMXAV|1|K|daily maximum of average 2-m temperature
TREFMXAV_R|1|K|Rural daily maximum of average 2-m temperature
TREFMXAV_U|1|K|Urban daily maximum of average 2-m temperature
TSA|1|K|2m air temperature
TSAI|1|1|total projected stem area index
TSA_R|1|K|Rural 2m air temperature
TSA_U|1|K|Urban 2m air temperature
TSOI|2g|K|soil temperature (vegetated landunits only)|soil_temperature|
TSOI_10CM|1|K|soil temperature in top 10cm of soil
TSOI_ICE|2g|K|soil temperature (ice landunits only)
TV|1|K|vegetation temperature
TWS|1|mm|total water storage
TWS_MONTH_BEGIN|1|mm|total water storage at the beginning of a month||point
TWS_MONTH_END|1|mm|total water storage at the end of a month||point
T_SCALAR|2d|1|temperature inhibition of decomposition
U10|1|m/s|10-m wind
URBAN_AC|1|W/m^2|urban air conditioning flux
URBAN_HEAT|1|W/m^2|urban heating flux
VOLR|1|m3|river channel total water storage
VOLRMCH|1|m3|river channel main channel water storage
WA|1|mm|water in the unconfined aquifer (vegetated landunits only)
WASTEHEAT|1|W/m^2|sensible heat flux from heating/cooling sources of urban waste heat
WF|1|proportion|soil water as frac. of whc for top 0.05 m
WIND|1|m/s|atmospheric wind velocity magnitude
WOODC|1|gC/m^2|wood C
WOODC_ALLOC|1|gC/m^2/s|wood C eallocation
WOODC_LOSS|1|gC/m^2/s|wood C loss
WOOD_HARVESTC|1|gC/m^2/s|wood harvest carbon (to product pools)
WOOD_HARVESTN|1|gN/m^2/s|wood harvest N (to product pools)
WTGQ|1|m/s|surface tracer conductance
W_SCALAR|2d|1|Moisture (dryness) inhibition of decomposition
XR|1|gC/m^2/s|total excess respiration
XSMRPOOL|1|gC/m^2|temporary photosynthate C pool
ZBOT|1|m|atmospheric reference height
ZWT|1|m|water table depth (vegetated landunits only)
ZWT_CH4_UNSAT|1|m|depth of water table for methane production used in non-inundated area
ZWT_PERCH|1|m|perched water table depth (vegetated landunits only)
cn_scalar|1||N limitation factor
cp_scalar|1||P limitation factor
leaf_npimbalance|1|gN/gP|leaf np imbalance partial C partial P/partial C partial N
nlim_m|1||runmean N limitation factor
o2_decomp_depth_unsat|2g|mol/m3/2|o2_decomp_depth_unsat
plim_m|1||runmean P limitation factor
`

// iLayouts maps the record table's layout codes to dimensions and decomposition.
var iLayouts = map[string]struct {
	dims   []string
	decomp int
}{
	"1":  {[]string{"time", "lat", "lon"}, 1},
	"2g": {[]string{"time", "levgrnd", "lat", "lon"}, 2},
	"2d": {[]string{"time", "levdcmp", "lat", "lon"}, 2},
	"3":  {[]string{"time", "levlak", "lat", "lon"}, 3},
	"4":  {[]string{"time", "ltype", "lat", "lon"}, 4},
	"5":  {[]string{"time", "natpft", "lat", "lon"}, 5},
}

// parseIRecords expands iRecords.
func parseIRecords(text string) ([]Var, error) {
	var out []Var
	for _, line := range tableLines(text) {
		f := strings.Split(line, "|")
		if len(f) != 4 && len(f) != 6 {
			return nil, fmt.Errorf("e3sm: bad I record variable line %q", line)
		}
		lay, ok := iLayouts[f[1]]
		if !ok {
			return nil, fmt.Errorf("e3sm: I record variable %s: layout %q", f[0], f[1])
		}
		v := Var{Name: f[0], Type: plan.F64, recType: true, Decomp: lay.decomp, Dims: append([]string(nil), lay.dims...)}
		v.Attrs = append(v.Attrs, TextAttr("long_name", f[3]))
		cm := "mean"
		if len(f) == 6 {
			if f[4] != "" {
				v.Attrs = append(v.Attrs, TextAttr("standard_name", f[4]))
			}
			if f[5] != "" {
				cm = f[5]
			}
		}
		v.Attrs = append(v.Attrs, TextAttr("units", f[2]), TextAttr("cell_methods", "time: "+cm),
			NumAttr("_FillValue", plan.F32, 1e36), NumAttr("missing_value", plan.F32, 1e36))
		out = append(out, v)
	}
	return out, nil
}

// iHistory gives an I history file's global attributes and variables in definition order.
func iHistory(hist string) ([]plan.AttributeSpec, []Var, error) {
	gtext, fixed := iGlobals, iFixed
	if hist == "h0" {
		fixed += iFixedH0
	} else {
		gtext += iGlobalsH1
	}
	globals, err := parseGlobals(gtext)
	if err != nil {
		return nil, nil, err
	}
	vars, err := parseVars(fixed + iRecHead)
	if err != nil {
		return nil, nil, err
	}
	rec, err := parseIRecords(iRecords)
	if err != nil {
		return nil, nil, err
	}
	return globals, append(vars, rec...), nil
}
