package e3sm

// F case (EAM atmosphere) history files, transcribed from E3SM-IO's real headers
// (datasets/f_case_h0.txt and f_case_h1.txt: ncdump -h of E3SM output, the variables
// E3SM-IO's header_def_F_case defines). Types are the real files' (record variables are
// float there); the pattern applies E3SM-IO's own types (double unless j) on top.

// fHead are the 27 non-partitioned and 3 fixed partitioned variables both F files start
// with, in definition order. Fields: type name dims decomposition | attributes.
const fHead = `
d lat ncol 2 | long_name=latitude; units=degrees_north
d lon ncol 2 | long_name=longitude; units=degrees_east
d area ncol 1 | long_name=gll grid areas
d lev lev 0 | long_name=hybrid level at midpoints (1000*(A+B)); units=hPa; positive=down; standard_name=atmosphere_hybrid_sigma_pressure_coordinate; formula_terms=a: hyam b: hybm p0: P0 ps: PS
d hyam lev 0 | long_name=hybrid A coefficient at layer midpoints
d hybm lev 0 | long_name=hybrid B coefficient at layer midpoints
d P0 - 0 | long_name=reference pressure; units=Pa
d ilev ilev 0 | long_name=hybrid level at interfaces (1000*(A+B)); units=hPa; positive=down; standard_name=atmosphere_hybrid_sigma_pressure_coordinate; formula_terms=a: hyai b: hybi p0: P0 ps: PS
d hyai ilev 0 | long_name=hybrid A coefficient at layer interfaces
d hybi ilev 0 | long_name=hybrid B coefficient at layer interfaces
d time time 0 | long_name=time; units=days since 0001-01-01 00:00:00; calendar=noleap; bounds=time_bnds
i date time 0 | long_name=current date (YYYYMMDD)
i datesec time 0 | long_name=current seconds of current date
d time_bnds time,nbnd 0 | long_name=time interval endpoints
c date_written time,chars 0 |
c time_written time,chars 0 |
i ndbase - 0 | long_name=base day
i nsbase - 0 | long_name=seconds of base day
i nbdate - 0 | long_name=base date (YYYYMMDD)
i nbsec - 0 | long_name=seconds of base date
i mdt - 0 | long_name=timestep; units=s
i ndcur time 0 | long_name=current day (from base day)
i nscur time 0 | long_name=current seconds of current day
d co2vmr time 0 | long_name=co2 volume mixing ratio
d ch4vmr time 0 | long_name=ch4 volume mixing ratio
d n2ovmr time 0 | long_name=n2o volume mixing ratio
d f11vmr time 0 | long_name=f11 volume mixing ratio
d f12vmr time 0 | long_name=f12 volume mixing ratio
d sol_tsi time 0 | long_name=total solar irradiance; units=W/m2
i nsteph time 0 | long_name=current timestep
`

// fH0 are h0's 384 partitioned record variables (321 on ncol = D2, 63 on lev × ncol =
// D3). Line: name|L|units|long_name|standard_name|cell_methods|flags with L 2 (time, ncol)
// or 3 (time, lev, ncol), units "-" for none, cell_methods empty for "time: mean", flags S
// (Sampling_Sequence = rad_lwsw), F (_FillValue and missing_value = 1e20f), w or d
// (mixing_ratio = wet or dry). Lines starting with * or + expand regular families:
// *AQ_, *DF_ and *SF list species; +species lists aerosol suffixes.
const fH0 = `
AEROD_v|2|1|Total Aerosol Optical Depth in visible band|||F
ANRAIN|3|m-3|Average rain number conc|||
ANSNOW|3|m-3|Average snow number conc|||
AODABS|2|-|Aerosol absorption optical depth 550 nm|atmosphere_absorption_optical_thickness_due_to_ambient_aerosol_particles||F
AODABSBC|2|-|Aerosol absorption optical depth 550 nm from BC|||F
AODALL|2|-|AOD 550 nm for all time and species|||F
AODBC|2|-|Aerosol optical depth 550 nm from BC|||F
AODDUST|2|-|Aerosol optical depth 550 nm from dust|||F
AODDUST1|2|-|Aerosol optical depth 550 nm model 1 from dust|||F
AODDUST3|2|-|Aerosol optical depth 550 nm model 3 from dust|||F
AODDUST4|2|-|Aerosol optical depth 550 nm model 4 from dust|||F
AODMODE1|2|-|Aerosol optical depth 550 nm mode 1|||F
AODMODE2|2|-|Aerosol optical depth 550 nm mode 2|||F
AODMODE3|2|-|Aerosol optical depth 550 nm mode 3|||F
AODMODE4|2|-|Aerosol optical depth 550 nm mode 4|||F
AODNIR|2|-|Aerosol optical depth 850 nm|||F
AODPOM|2|-|Aerosol optical depth 550 nm from POM|||F
AODSO4|2|-|Aerosol optical depth 550 nm from SO4|||F
AODSOA|2|-|Aerosol optical depth 550 nm from SOA|||F
AODSS|2|-|Aerosol optical depth 550 nm from seasalt|||F
AODUV|2|-|Aerosol optical depth 350 nm|||F
AODVIS|2|-|Aerosol optical depth 550 nm|atmosphere_optical_thickness_due_to_ambient_aerosol_particles||F
AQRAIN|3|kg/kg|Average rain mixing ratio|||
AQSNOW|3|kg/kg|Average snow mixing ratio|||
*AQ_ DMS H2O2 H2SO4 O3 SO2 SOAG
AREI|3|Micron|Average ice effective radius|||
AREL|3|Micron|Average droplet effective radius|||
AWNC|3|m-3|Average cloud water number conc|||
AWNI|3|m-3|Average cloud ice number conc|||
BURDEN1|2|kg/m2|Aerosol burden mode 1|||F
BURDEN2|2|kg/m2|Aerosol burden mode 2|||F
BURDEN3|2|kg/m2|Aerosol burden mode 3|||F
BURDEN4|2|kg/m2|Aerosol burden mode 4|||F
CCN3|3|1/cm3|CCN concentration at S=0.1%|||
CDNUMC|2|1/m2|Vertically-integrated droplet concentration|||
CLDHGH|2|1|Vertically-integrated high cloud|||
CLDICE|3|kg/kg|Grid box averaged cloud ice amount|||w
CLDLIQ|3|kg/kg|Grid box averaged cloud liquid amount|||w
CLDLOW|2|1|Vertically-integrated low cloud|||
CLDMED|2|1|Vertically-integrated mid-level cloud|||
CLDTOT|2|1|Vertically-integrated total cloud|||
CLOUD|3|1|Cloud fraction|||
CLOUDFRAC_CLUBB|3|1|Cloud Fraction|||
CONCLD|3|fraction|Convective cloud cover|||
DCQ|3|kg/kg/s|Q tendency due to moist processes|||
*DF_ DMS H2O2 H2SO4 O3 SO2 SOAG
DMS_SRF|2|mol/mol|DMS in bottom layer|||
DP_KCLDBASE|2|1|Deep conv. cloudbase level index|||
DP_MFUP_MAX|2|kg/m2|Deep conv. column-max updraft mass flux|||
DP_WCLDBASE|2|m/s|Deep conv. cloudbase vertical velocity|||
DSTSFMBL|2|kg/m2/s|Mobilization flux at surface|||
DTCOND|3|K/s|T tendency - moist processes|||
DTENDTH|2|W/m2|Dynamic Tendency of Total (vertically integrated) moist static energy|||
DTENDTQ|2|kg/m2/s|Dynamic Tendency of Total (vertically integrated) specific humidity|||
EXTINCT|3|/m|Aerosol extinction|||F
FICE|3|1|Fractional ice content within cloud|||
FLDS|2|W/m2|Downwelling longwave flux at surface|surface_downwelling_longwave_flux_in_air||SF
FLNS|2|W/m2|Net longwave flux at surface|||SF
FLNSC|2|W/m2|Clearsky net longwave flux at surface|||SF
FLNT|2|W/m2|Net longwave flux at top of model|||SF
FLNTC|2|W/m2|Clearsky net longwave flux at top of model|||SF
FLUT|2|W/m2|Upwelling longwave flux at top of model|||SF
FLUTC|2|W/m2|Clearsky upwelling longwave flux at top of model|toa_outgoing_longwave_flux_assuming_clear_sky||SF
FREQI|3|1|Fractional occurrence of ice|||
FREQL|3|1|Fractional occurrence of liquid|||
FREQR|3|1|Fractional occurrence of rain|||
FREQS|3|1|Fractional occurrence of snow|||
FSDS|2|W/m2|Downwelling solar flux at surface|surface_downwelling_shortwave_flux_in_air||SF
FSDSC|2|W/m2|Clearsky downwelling solar flux at surface|surface_downwelling_shortwave_flux_in_air_assuming_clear_sky||SF
FSNS|2|W/m2|Net solar flux at surface|||SF
FSNSC|2|W/m2|Clearsky net solar flux at surface|||SF
FSNT|2|W/m2|Net solar flux at top of model|||SF
FSNTC|2|W/m2|Clearsky net solar flux at top of model|||SF
FSNTOA|2|W/m2|Net solar flux at top of atmosphere|||SF
FSNTOAC|2|W/m2|Clearsky net solar flux at top of atmosphere|||SF
FSUTOA|2|W/m2|Upwelling solar flux at top of atmosphere|toa_outgoing_shortwave_flux||SF
FSUTOAC|2|W/m2|Clearsky upwelling solar flux at top of atmosphere|toa_outgoing_shortwave_flux_assuming_clear_sky||SF
F_eff|2|1|Effective enrichment factor of marine organic matter|||
H2O2_SRF|2|mol/mol|H2O2 in bottom layer|||
H2SO4_SRF|2|mol/mol|H2SO4 in bottom layer|||
H2SO4_sfgaex1|2|kg/m2/s|H2SO4 gas-aerosol-exchange primary column tendency|||
ICEFRAC|2|1|Fraction of sfc area covered by sea-ice|||
ICIMR|3|kg/kg|Prognostic in-cloud ice mixing ratio|||
ICWMR|3|kg/kg|Prognostic in-cloud water mixing ratio|||
IWC|3|kg/m3|Grid box average ice water content|||
LANDFRAC|2|1|Fraction of sfc area covered by land|||
LHFLX|2|W/m2|Surface latent heat flux|surface_upward_latent_heat_flux||
LINOZ_DO3|3|1/s|ozone vmr tendency by linearized ozone chemistry|||
LINOZ_DO3_PSC|3|1/s|ozone vmr loss by PSCs using Carille et al. (1990)|||
LINOZ_O3CLIM|3|mol/mol|climatology of ozone in LINOZ|||
LINOZ_O3COL|3|DU|ozone column above|||
LINOZ_SFCSINK|2|Tg/yr/m2|surface o3 sink in LINOZ with an e-fold to a fixed concentration|||
LINOZ_SSO3|3|kg|steady state ozone in LINOZ|||
LINOZ_SZA|2|degrees|solar zenith angle in LINOZ|||
LND_MBL|2|1|Soil erodibility factor|||
LWCF|2|W/m2|Longwave cloud forcing|toa_longwave_cloud_radiative_effect||SF
Mass_bc|3|kg/kg|sum of bc mass concentration bc_a1+bc_c1+bc_a3+bc_c3+bc_a4+bc_c4|||
Mass_dst|3|kg/kg|sum of dst mass concentration dst_a1+dst_c1+dst_a3+dst_c3|||
Mass_mom|3|kg/kg|sum of mom mass concentration mom_a1+mom_c1+mom_a2+mom_c2+mom_a3+mom_c3+mom_a4+mom_c4|||
Mass_ncl|3|kg/kg|sum of ncl mass concentration ncl_a1+ncl_c1+ncl_a2+ncl_c2+ncl_a3+ncl_c3|||
Mass_pom|3|kg/kg|sum of pom mass concentration pom_a1+pom_c1+pom_a3+pom_c3+pom_a4+pom_c4|||
Mass_so4|3|kg/kg|sum of so4 mass concentration so4_a1+so4_c1+so4_a2+so4_c2+so4_a3+so4_c3|||
Mass_soa|3|kg/kg|sum of soa mass concentration soa_a1+soa_c1+soa_a2+soa_c2+soa_a3+soa_c3|||
NUMICE|3|1/kg|Grid box averaged cloud ice number|||w
NUMLIQ|3|1/kg|Grid box averaged cloud liquid number|||w
NUMRAI|3|1/kg|Grid box averaged rain number|||w
NUMSNO|3|1/kg|Grid box averaged snow number|||w
O3|3|mol/mol|O3 concentration|||d
O3_SRF|2|mol/mol|O3 in bottom layer|||
OCNFRAC|2|1|Fraction of sfc area covered by ocean|||
OMEGA|3|Pa/s|Vertical velocity (pressure)|lagrangian_tendency_of_air_pressure||
OMEGA500|2|Pa/s|Vertical velocity at 500 mbar pressure surface|||
OMEGAT|3|K Pa/s|Vertical heat flux|||
PBLH|2|m|PBL height|||
PHIS|2|m2/s2|Surface geopotential||point|
PRECC|2|m/s|Convective precipitation rate (liq + ice)|||
PRECL|2|m/s|Large-scale (stable) precipitation rate (liq + ice)|||
PRECSC|2|m/s|Convective snow rate (water equivalent)|||
PRECSL|2|m/s|Large-scale (stable) snow rate (water equivalent)|||
PS|2|Pa|Surface pressure|surface_air_pressure||
PSL|2|Pa|Sea level pressure|air_pressure_at_mean_sea_level||
Q|3|kg/kg|Specific humidity|||w
QFLX|2|kg/m2/s|Surface water flux|water_evapotranspiration_flux||
QREFHT|2|kg/kg|Reference height humidity|specific_humidity||
QRL|3|K/s|Longwave heating rate|||SF
QRS|3|K/s|Solar heating rate|||SF
RAINQM|3|kg/kg|Grid box averaged rain amount|||w
RAM1|2|frac|RAM1|||
RELHUM|3|percent|Relative humidity|relative_humidity||
*SF DMS H2O2 H2SO4 O3 SO2 SOAG bc_a1 bc_a3 bc_a4 dst_a1 dst_a3 mom_a1 mom_a2 mom_a3 mom_a4 ncl_a1 ncl_a2 ncl_a3 num_a1 num_a2 num_a3 num_a4 pom_a1 pom_a3 pom_a4 so4_a1 so4_a2 so4_a3 soa_a1 soa_a2 soa_a3
SHFLX|2|W/m2|Surface sensible heat flux|surface_upward_sensible_heat_flux||
SH_KCLDBASE|2|1|Shallow conv. cloudbase level index|||
SH_MFUP_MAX|2|kg/m2|Shallow conv. column-max updraft mass flux|||
SH_WCLDBASE|2|m/s|Shallow conv. cloudbase vertical velocity|||
SNOWHICE|2|m|Snow depth over ice|||
SNOWHLND|2|m|Water equivalent snow depth|||
SNOWQM|3|kg/kg|Grid box averaged snow amount|||w
SO2|3|mol/mol|SO2 concentration|||d
SO2_CLXF|2|molec/cm2/s|vertically intergrated external forcing for SO2|||
SO2_SRF|2|mol/mol|SO2 in bottom layer|||
SOAG_CLXF|2|molec/cm2/s|vertically intergrated external forcing for SOAG|||
SOAG_SRF|2|mol/mol|SOAG in bottom layer|||
SOAG_sfgaex1|2|kg/m2/s|SOAG gas-aerosol-exchange primary column tendency|||
SOLIN|2|W/m2|Solar insolation|toa_incoming_shortwave_flux||SF
SSAVIS|2|-|Aerosol singel-scatter albedo|||F
SSTSFMBL|2|kg/m2/s|Mobilization flux at surface|||
SSTSFMBL_OM|2|kg/m2/s|Mobilization flux of marine organic matter at surface|||
SWCF|2|W/m2|Shortwave cloud forcing|toa_shortwave_cloud_radiative_effect||SF
T|3|K|Temperature|air_temperature||
TAUGWX|2|N/m2|Zonal gravity wave surface stress|||
TAUGWY|2|N/m2|Meridional gravity wave surface stress|||
TAUX|2|N/m2|Zonal surface stress|||
TAUY|2|N/m2|Meridional surface stress|||
TGCLDCWP|2|kg/m2|Total grid-box cloud water path (liquid and ice)|atmosphere_mass_content_of_cloud_condensed_water||
TGCLDIWP|2|kg/m2|Total grid-box cloud ice water path|atmosphere_mass_content_of_cloud_ice||
TGCLDLWP|2|kg/m2|Total grid-box cloud liquid water path|atmosphere_mass_content_of_cloud_liquid_water||
TH7001000|2|K|Theta difference 700 mb - 1000 mb|||
TMQ|2|kg/m2|Total (vertically integrated) precipitable water|atmosphere_mass_content_of_water_vapor||
TREFHT|2|K|Reference height temperature|air_temperature||
TROP_P|2|Pa|Tropopause Pressure|||F
TROP_T|2|K|Tropopause Temperature|||F
TS|2|K|Surface temperature (radiative)|surface_temperature||
TSMN|2|K|Minimum surface temperature over output period||minimum|
TSMX|2|K|Maximum surface temperature over output period||maximum|
TUH|2|W/m|Total (vertically integrated) zonal MSE flux|||
TUQ|2|kg/m/s|Total (vertically integrated) zonal water flux|||
TVH|2|W/m|Total (vertically integrated) meridional MSE flux|||
TVQ|2|kg/m/s|Total (vertically integrated) meridional water flux|||
U|3|m/s|Zonal wind|eastward_wind||
U10|2|m/s|10m wind speed|wind_speed||
UU|3|m2/s2|Zonal velocity squared|||
V|3|m/s|Meridional wind|northward_wind||
VQ|3|m/s kg/kg|Meridional water transport|||
VT|3|K m/s|Meridional heat transport|||
VU|3|m2/s2|Meridional flux of zonal momentum|||
VV|3|m2/s2|Meridional velocity squared|||
WD_H2O2|2|kg/s|H2O2             wet deposition|||
WD_H2SO4|2|kg/s|H2SO4            wet deposition|||
WD_SO2|2|kg/s|SO2              wet deposition|||
WSUB|3|m/s|Diagnostic sub-grid vertical velocity|||
Z3|3|m|Geopotential Height (above sea level)|geopotential_height||
aero_water|3|m|sum of aerosol water of interstitial modes wat_a1+wat_a2+wat_a3+wat_a4|||
airFV|2|frac|FV|||
+bc_a1 DDF SFWET _SRF _sfgaex1
+bc_a3 DDF SFWET _SRF
+bc_a4 DDF SFWET _CLXF _SRF _sfgaex1
+bc_c1 DDF SFWET
+bc_c3 DDF SFWET
+bc_c4 DDF SFWET
chla|2|mg L-1|ocean input data: chla|||
+dst_a1 DDF SF SFWET _SRF
+dst_a3 DDF SF SFWET _SRF
+dst_c1 DDF SFWET
+dst_c3 DDF SFWET
hstobie_linoz|3|fraction of model time|Lowest possible Linoz level||point|
mlip|2|uM C|ocean input data: mlip|||
+mom_a1 DDF SF SFWET _SRF _sfgaex1
+mom_a2 DDF SF SFWET _SRF
+mom_a3 DDF SFWET _SRF
+mom_a4 DDF SF SFWET _SRF _sfgaex1
+mom_c1 DDF SFWET
+mom_c2 DDF SFWET
+mom_c3 DDF SFWET
+mom_c4 DDF SFWET
mpoly|2|uM C|ocean input data: mpoly|||
mprot|2|uM C|ocean input data: mprot|||
+ncl_a1 DDF SF SFWET _SRF
+ncl_a2 DDF SF SFWET _SRF
+ncl_a3 DDF SF SFWET _SRF
+ncl_c1 DDF SFWET
+ncl_c2 DDF SFWET
+ncl_c3 DDF SFWET
+num_a1 DDF SF SFWET _CLXF _SRF _sfgaex1
+num_a2 DDF SFWET _CLXF _SRF
+num_a3 DDF SF SFWET _SRF
+num_a4 DDF SFWET _CLXF _SRF _sfgaex1
+num_c1 DDF SFWET
+num_c2 DDF SFWET
+num_c3 DDF SFWET
+num_c4 DDF SFWET
+pom_a1 DDF SFWET _SRF _sfgaex1
+pom_a3 DDF SFWET _SRF
+pom_a4 DDF SFWET _CLXF _SRF _sfgaex1
+pom_c1 DDF SFWET
+pom_c3 DDF SFWET
+pom_c4 DDF SFWET
+so4_a1 DDF SFWET _CLXF _SRF _sfgaex1
+so4_a2 DDF SFWET _CLXF _SRF _sfgaex1
+so4_a3 DDF SFWET _SRF _sfgaex1
+so4_c1 DDF SFWET
+so4_c2 DDF SFWET
+so4_c3 DDF SFWET
+soa_a1 DDF SFWET _SRF _sfgaex1
+soa_a2 DDF SFWET _SRF _sfgaex1
+soa_a3 DDF SFWET _SRF _sfgaex1
+soa_c1 DDF SFWET
+soa_c2 DDF SFWET
+soa_c3 DDF SFWET
`

// fH1 are h1's 21 partitioned record variables (20 on D2, U on D3).
const fH1 = `
CLDHGH|2|1|Vertically-integrated high cloud|||
CLDLOW|2|1|Vertically-integrated low cloud|||
CLDMED|2|1|Vertically-integrated mid-level cloud|||
FLNT|2|W/m2|Net longwave flux at top of model|||SF
LWCF|2|W/m2|Longwave cloud forcing|toa_longwave_cloud_radiative_effect||SF
OMEGA500|2|Pa/s|Vertical velocity at 500 mbar pressure surface|||
OMEGA850|2|Pa/s|Vertical velocity at 850 mbar pressure surface||point|
PRECT|2|m/s|Total (convective and large-scale) precipitation rate (liq + ice)||point|
PS|2|Pa|Surface pressure|surface_air_pressure||
SWCF|2|W/m2|Shortwave cloud forcing|toa_shortwave_cloud_radiative_effect||SF
T850|2|K|Temperature at 850 mbar pressure surface||point|
TMQ|2|kg/m2|Total (vertically integrated) precipitable water|atmosphere_mass_content_of_water_vapor||
TS|2|K|Surface temperature (radiative)|surface_temperature||
U|3|m/s|Zonal wind|eastward_wind||
U250|2|m/s|Zonal wind at 250 mbar pressure surface||point|
U850|2|m/s|Zonal wind at 850 mbar pressure surface||point|
UBOT|2|m/s|Lowest model level zonal wind||point|
V250|2|m/s|Meridional wind at 250 mbar pressure surface||point|
V850|2|m/s|Meridional wind at 850 mbar pressure surface||point|
VBOT|2|m/s|Lowest model level meridional wind||point|
Z500|2|m|Geopotential Z at 500 mbar pressure surface||point|
`

// fGlobals are the F files' global attributes (layouts.md 4.3, real values); the last,
// time_period_freq, depends on the file.
const fGlobals = `
i ne=120
i np=21600
t title=EAM History file information
t source=E3SM Atmosphere Model
t source_id=025f820fce
t product=model-output
t realm=atmos
t case=FC5AV1C-H01A_ne120_oRRS18v3
t username=E3SM
t hostname=cori-knl
t git_version=025f820fce
t history=created on 06/10/21 11:59:48
t Conventions=CF-1.7
t institution_id=E3SM-Project
t institution=LLNL (Lawrence Livermore National Laboratory, Livermore, CA 94550, USA); ANL (Argonne National Laboratory, Argonne, IL 60439, USA); BNL (Brookhaven National Laboratory, Upton, NY 11973, USA); LANL (Los Alamos National Laboratory, Los Alamos, NM 87545, USA); LBNL (Lawrence Berkeley National Laboratory, Berkeley, CA 94720, USA); ORNL (Oak Ridge National Laboratory, Oak Ridge, TN 37831, USA); PNNL (Pacific Northwest National Laboratory, Richland, WA 99352, USA); SNL (Sandia National Laboratories, Albuquerque,
t contact=e3sm-data-support@listserv.llnl.gov
t initial_file=/global/cfs/cdirs/e3sm/inputdata/atm/cam/inic/homme/cami_mam3_Linoz_0000-01-ne120np4_L72_c160318.nc
t topography_file=/global/cfs/cdirs/e3sm/inputdata/atm/cam/topo/USGS-gtopo30_ne120np4_16xdel2-PFC-consistentSGH.nc
`
