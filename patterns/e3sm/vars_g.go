package e3sm

// G case (MPAS-Ocean) history file, transcribed from E3SM-IO's real header
// (datasets/g_case_hist.txt). Decompositions: D1 nCells, D2 nEdges, D3 nCells×nVertLevels,
// D4 nEdges×nVertLevels, D5 nVertices×nVertLevels, D6 nCells×nVertLevelsP1.
const gVars = `
d salinitySurfaceRestoringTendency Time,nCells 1 | units=m PSU/s; long_name=salinity tendency due to surface restoring
d vertTransportVelocityTop Time,nCells,nVertLevelsP1 6 | units=m s^{-1}; long_name=vertical tracer-transport velocity defined at center (horizontally) and top (vertically) of cell.  This is not the vertical ALE transport, but is Eulerian (fixed-frame) in the vertical, and computed from the continuity equation from the horizontal total tracer-transport velocity.
d vertGMBolusVelocityTop Time,nCells,nVertLevelsP1 6 | units=m s^{-1}; long_name=vertical tracer-transport velocity defined at center (horizontally) and top (vertically) of cell.  This is not the vertical ALE transport, but is Eulerian (fixed-frame) in the vertical, and computed from the continuity equation from the horizontal GM Bolus velocity.
d vertAleTransportTop Time,nCells,nVertLevelsP1 6 | units=m s^{-1}; long_name=vertical transport through the layer interface at the top of the cell
d tendSSH Time,nCells 1 | units=m s^{-1}; long_name=time tendency of sea-surface height
d layerThickness Time,nCells,nVertLevels 3 | units=m; long_name=layer thickness
d normalVelocity Time,nEdges,nVertLevels 4 | units=m s^{-1}; long_name=horizonal velocity, normal component to an edge
d ssh Time,nCells 1 | units=m; long_name=sea surface height
i maxLevelEdgeTop nEdges 2 | units=unitless; long_name=Index to the last edge in a column with active ocean cells on both sides of it.
d vertCoordMovementWeights nVertLevels 0 | units=unitless; long_name=Weights used for distribution of sea surface heigh purturbations through multiple vertical levels.
i edgeMask nEdges,nVertLevels 4 | units=unitless; long_name=Mask on edges that determines if computations should be done on edge.
i cellMask nCells,nVertLevels 3 | units=unitless; long_name=Mask on cells that determines if computations should be done on cell.
i vertexMask nVertices,nVertLevels 5 | units=unitless; long_name=Mask on vertices that determines if computations should be done on vertice.
d refZMid nVertLevels 0 | units=m; long_name=Reference mid z-coordinate of ocean for each vertical level. This has a negative value.
d refLayerThickness nVertLevels 0 | units=m; long_name=Reference layerThickness of ocean for each vertical level.
c xtime Time,StrLen 0 | units=unitless; long_name=model time, with format 'YYYY-MM-DD_HH:MM:SS'
d kineticEnergyCell Time,nCells,nVertLevels 3 | units=m^2 s^{-2}; long_name=kinetic energy of horizonal velocity on cells
d relativeVorticityCell Time,nCells,nVertLevels 3 | units=s^{-1}; long_name=curl of horizontal velocity, averaged from vertices to cell centers
d relativeVorticity Time,nVertices,nVertLevels 5 | units=s^{-1}; long_name=curl of horizontal velocity, defined at vertices
d divergence Time,nCells,nVertLevels 3 | units=s^{-1}; long_name=divergence of horizonal velocity
d areaCellGlobal Time 0 | units=m^2; long_name=sum of the areaCell variable over the full domain, used to normalize global statistics
d areaEdgeGlobal Time 0 | units=m^2; long_name=sum of the areaEdge variable over the full domain, used to normalize global statistics
d areaTriangleGlobal Time 0 | units=m^2; long_name=sum of the areaTriangle variable over the full domain, used to normalize global statistics
d volumeCellGlobal Time 0 | units=m^3; long_name=sum of the volumeCell variable over the full domain, used to normalize global statistics
d volumeEdgeGlobal Time 0 | units=m^3; long_name=sum of the volumeEdge variable over the full domain, used to normalize global statistics
d CFLNumberGlobal Time 0 | units=unitless; long_name=maximum CFL number over the full domain
d BruntVaisalaFreqTop Time,nCells,nVertLevels 3 | units=s^{-2}; long_name=Brunt Vaisala frequency defined at the center (horizontally) and top (vertically) of cell
d vertVelocityTop Time,nCells,nVertLevelsP1 6 | units=m s^{-1}; long_name=vertical velocity defined at center (horizontally) and top (vertically) of cell
d velocityZonal Time,nCells,nVertLevels 3 | units=m s^{-1}; long_name=component of horizontal velocity in the eastward direction
d velocityMeridional Time,nCells,nVertLevels 3 | units=m s^{-1}; long_name=component of horizontal velocity in the northward direction
d displacedDensity Time,nCells,nVertLevels 3 | units=kg m^{-3}; long_name=Density displaced adiabatically to the mid-depth one layer deeper.  That is, layer k has been displaced to the depth of layer k+1.
d potentialDensity Time,nCells,nVertLevels 3 | units=kg m^{-3}; long_name=potential density: density displaced adiabatically to the mid-depth of top layer
d pressure Time,nCells,nVertLevels 3 | units=N m^{-2}; long_name=pressure used in the momentum equation
d refBottomDepth nVertLevels 0 | units=m; long_name=Reference depth of ocean for each vertical level. Used in 'z-level' type runs.
d zMid Time,nCells,nVertLevels 3 | units=m; long_name=z-coordinate of the mid-depth of the layer
d bottomDepth nCells 1 | units=m; long_name=Depth of the bottom of the ocean. Given as a positive distance from sea level.
i maxLevelCell nCells 1 | units=unitless; long_name=Index to the last active ocean cell in each column.
i maxLevelEdgeBot nEdges 2 | units=unitless; long_name=Index to the last edge in a column with at least one active ocean cell on either side of it.
d columnIntegratedSpeed Time,nCells 1 | units=m^2 s^{-1}; long_name=speed = sum(h*sqrt(2*ke)), where ke is kineticEnergyCell and the sum is over the full column at cell centers.
d temperatureHorizontalAdvectionTendency Time,nCells,nVertLevels 3 | long_name=potential temperature tendency due to horizontal advection; units=degrees Celsius per second
d salinityHorizontalAdvectionTendency Time,nCells,nVertLevels 3 | long_name=salinity tendency due to horizontal advection; units=PSU per second
d temperatureVerticalAdvectionTendency Time,nCells,nVertLevels 3 | long_name=potential temperature tendency due to vertical advection; units=degrees Celsius per second
d salinityVerticalAdvectionTendency Time,nCells,nVertLevels 3 | long_name=salinity tendency due to vertical advection; units=PSU per second
d temperatureVertMixTendency Time,nCells,nVertLevels 3 | long_name=potential temperature tendency due to vertical mixing; units=degrees Celsius per second
d salinityVertMixTendency Time,nCells,nVertLevels 3 | long_name=salinity tendency due to vertical mixing; units=PSU per second
d temperatureSurfaceFluxTendency Time,nCells,nVertLevels 3 | long_name=potential temperature tendency due to surface fluxes; units=degrees Celsius per second
d salinitySurfaceFluxTendency Time,nCells,nVertLevels 3 | long_name=salinity tendency due to surface fluxes; units=PSU per second
d temperatureShortWaveTendency Time,nCells,nVertLevels 3 | units=degrees Celsius per second; long_name=potential temperature tendency due to penetrating shortwave
d temperatureNonLocalTendency Time,nCells,nVertLevels 3 | long_name=potential temperature tendency due to kpp non-local flux; units=degrees Celsius per second
d salinityNonLocalTendency Time,nCells,nVertLevels 3 | long_name=salinity tendency due to kpp non-local flux; units=PSU per second
d temperature Time,nCells,nVertLevels 3 | long_name=potential temperature; units=degrees Celsius
d salinity Time,nCells,nVertLevels 3 | long_name=salinity; units=grams salt per kilogram seawater
`

// gGlobals are the first global attributes of the real G header (the MPAS identification
// ones); the few hundred config_* namelist attributes that follow them in the real file
// are not transcribed.
const gGlobals = `
t on_a_sphere=YES
d sphere_radius=6371229
t model_name=mpas
t core_name=ocean
t history=mpirun -n 9600 ./ocean_model
t source=MPAS
t Conventions=MPAS
t parent_id=mt6vdoeok9\nrz1tbn0bed\n555vk5hkh9\n0s1lcmezuy\n7z1uysqc5i\nwj661vqvze
t mesh_spec=0.0
t git_version=MPAS_GIT_VERSION
t config_ocean_run_mode=forward
t config_do_restart=NO
t config_calendar_type=gregorian_noleap
t config_dt=00:06:00
t config_time_integrator=split_explicit
`
