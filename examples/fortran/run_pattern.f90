!> run_pattern.f90: the Fortran counterpart of examples/c/run_pattern.c.
!>
!> Runs any built-in pattern with its KEY=VALUE arguments (joined with ';' into the
!> options string) through the Fortran module, then checks that every finished phase
!> moved bytes and that no verified read found a mismatch.
!>
!>   mpirun -np 2 ./run_pattern_f h5perf file=/tmp/h5perf/data api=mpiio layout=mpiio
!>   mpirun -np 2 ./run_pattern_f app description=examples/apps/particles.yaml file=/tmp/app/run.h5
program run_pattern
  use, intrinsic :: iso_c_binding, only: c_double
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use mpi
  use h5proxy
  implicit none

  type(h5proxy_session) :: s
  integer :: ierr, provided, rank, size, phases, failures, all_failures, i
  real(c_double) :: bytes, mismatches
  character(len=256) :: pattern
  character(len=4096) :: arg
  character(len=:), allocatable :: options

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  failures = 0
  if (command_argument_count() < 1) then
     if (rank == 0) write (error_unit, '(a)') 'usage: run_pattern_f PATTERN [KEY=VALUE ...]'
     call MPI_Finalize(ierr)
     stop 2
  end if
  call get_command_argument(1, pattern)
  options = ''
  do i = 2, command_argument_count()
     call get_command_argument(i, arg)
     if (i > 2) options = options // ';'
     options = options // trim(arg)
  end do

  ! Without ierr, a failing call prints h5proxy's message and stops.
  call h5proxy_session_create(s, MPI_COMM_WORLD, trim(pattern), options)
  call h5proxy_session_run(s)
  call h5proxy_report_write(s, .true.)

  ! Phases are numbered from 0 in the order they ended; the index past the last is
  ! refused as an invalid argument.
  phases = 0
  do
     call h5proxy_report_metric(s, phases, 'bytes', bytes, ierr)
     if (ierr == H5PROXY_ERR_INVALID_ARGUMENT) exit
     if (ierr /= H5PROXY_OK) then
        write (error_unit, '(a,i0)') 'run_pattern_f: h5proxy_report_metric failed: ', ierr
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
     end if
     call h5proxy_report_metric(s, phases, 'mismatches', mismatches)
     if (bytes <= 0 .or. mismatches /= 0) then
        write (error_unit, '(a,i0,a,i0,a,f0.0,a,f0.0)') 'run_pattern_f: rank ', rank, ': phase ', &
             phases, ': bytes ', bytes, ', mismatches ', mismatches
        failures = failures + 1
     end if
     phases = phases + 1
  end do
  if (phases == 0) failures = failures + 1

  call h5proxy_session_close(s)
  call h5proxy_finalize()

  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (all_failures == 0) then
        write (output_unit, '(a,a,a,i0,a,i0,a)') 'run_pattern_f: ', trim(pattern), ', ', size, &
             ' ranks, ', phases, ' phases: all checks passed'
     else
        write (output_unit, '(a,a,a)') 'run_pattern_f: ', trim(pattern), ': CHECKS FAILED'
     end if
  end if
  call MPI_Finalize(ierr)
  if (all_failures /= 0) stop 1
end program run_pattern
