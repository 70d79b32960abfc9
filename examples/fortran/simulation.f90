!> simulation.f90: the Fortran counterpart of examples/c/simulation.c.
!>
!> A host that keeps its MPI set-up, emulates compute with h5proxy_compute and issues a
!> VPIC-like particle checkpoint per timestep with h5proxy_phase_step, then re-reads and
!> verifies it and checks the reduced metrics. Same options as the C and Go examples, so
!> the three write the same file.
!>
!>   mpirun -np 2 ./simulation_f /tmp/particles.h5
program simulation
  use, intrinsic :: iso_c_binding, only: c_double
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use mpi
  use h5proxy
  implicit none

  integer, parameter :: timesteps = 3, dim_1 = 65536, particle_bytes = 32
  type(h5proxy_session) :: s
  integer :: ierr, provided, rank, size, steps, step, n, failures, all_failures, version
  real(c_double) :: v, want_bytes
  character(len=4096) :: path
  character(len=:), allocatable :: msg, options

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  failures = 0
  if (command_argument_count() /= 1) then
     if (rank == 0) write (error_unit, '(a)') 'usage: simulation_f FILE.h5'
     call MPI_Finalize(ierr)
     stop 2
  end if
  call get_command_argument(1, path)
  call h5proxy_abi_version_get(version)
  if (version /= H5PROXY_ABI_VERSION) then
     write (error_unit, '(a,i0,a,i0)') 'simulation_f: library ABI ', version, ', module ABI ', &
          H5PROXY_ABI_VERSION
     call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  options = 'TIMESTEPS=3;DIM_1=65536;COLLECTIVE_DATA=YES;compute_time=10ms;verify=yes;file=' &
       // trim(path)
  ! Without ierr, a failing call prints h5proxy's message and stops.
  call h5proxy_session_create(s, MPI_COMM_WORLD, 'vpic', options=options)
  call h5proxy_session_steps(s, steps)
  call h5proxy_session_rank(s, n)
  call expect(n == rank, 'session rank')
  call h5proxy_session_size(s, n)
  call expect(n == size, 'session size')
  call expect(steps == timesteps, 'steps')

  call h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE)
  do step = 0, steps - 1
     if (step > 0) call h5proxy_compute(s, -1.0)   ! negative: the configured compute_time
     call h5proxy_phase_step(s, step)
  end do
  call h5proxy_phase_end(s)
  call h5proxy_session_wait(s)

  call h5proxy_phase_begin(s, H5PROXY_PHASE_READ)
  do step = 0, steps - 1
     call h5proxy_phase_step(s, step)
  end do
  call h5proxy_phase_end(s)

  flush (output_unit)
  call h5proxy_report_write(s, .true.)

  want_bytes = real(timesteps, c_double) * dim_1 * particle_bytes * size
  call h5proxy_report_metric(s, 0, 'bytes', v)
  call expect(v == want_bytes, 'write bytes')
  call h5proxy_report_metric(s, 0, 'steps', v)
  call expect(v == timesteps, 'write steps')
  call h5proxy_report_metric(s, 1, 'bytes', v)
  call expect(v == want_bytes, 'read bytes')
  call h5proxy_report_metric(s, 1, 'mismatches', v)
  call expect(v == 0, 'read mismatches')
  call h5proxy_report_metric(s, 1, 'verify_time', v)
  call expect(v > 0, 'read verified')

  ! With ierr the caller handles failures: an unknown metric, then a closed session.
  call h5proxy_report_metric(s, 0, 'speed', v, ierr)
  call expect(ierr == H5PROXY_ERR_INVALID_ARGUMENT, 'unknown metric status')
  call h5proxy_last_error(msg)
  call expect(index(msg, 'h5proxy_report_metric') > 0 .and. index(msg, '"speed"') > 0, &
       'unknown metric message: ' // msg)

  call h5proxy_session_close(s)
  call expect(.not. s%valid, 'closed session marked invalid')
  call h5proxy_session_steps(s, n, ierr)
  call expect(ierr == H5PROXY_ERR_INVALID_HANDLE, 'steps after close status')
  call h5proxy_last_error(msg)
  call expect(index(msg, 'closed') > 0, 'steps after close message: ' // msg)
  call h5proxy_strerror(ierr, msg)
  call expect(index(msg, 'H5PROXY_ERR_INVALID_HANDLE') == 1, 'strerror: ' // msg)
  call h5proxy_patterns_list(msg)
  call expect(index(msg, 'vpic') > 0, 'patterns list: ' // msg)
  call h5proxy_options_help('vpic', msg)
  call expect(index(msg, 'DIM_1') > 0, 'vpic help')
  call h5proxy_options_help('nosuch', msg, ierr)
  call expect(ierr == H5PROXY_ERR_CONFIG, 'unknown pattern help status')

  call h5proxy_finalize()
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (all_failures == 0) then
        write (output_unit, '(a,i0,a,i0,a)') 'simulation_f: ', size, ' ranks, thread level ', &
             provided, ', ' // trim(path) // ': all checks passed'
     else
        write (output_unit, '(a)') 'simulation_f: CHECKS FAILED'
     end if
  end if
  call MPI_Finalize(ierr)
  if (all_failures /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       write (error_unit, '(a,i0,a)') 'simulation_f: rank ', rank, ': check failed: ' // what
       failures = failures + 1
    end if
  end subroutine expect

end program simulation
