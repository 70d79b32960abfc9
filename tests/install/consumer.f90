! consumer.f90: uses the installed Fortran module h5proxy.
program consumer
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi
  use h5proxy
  implicit none
  type(h5proxy_session) :: s
  integer :: ierr, rank, size, bad, all
  real(c_double) :: bytes
  character(len=:), allocatable :: msg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  bad = 0
  call h5proxy_session_create(s, MPI_COMM_WORLD, 'vpic', options='layout=null;TIMESTEPS=2;DIM_1=100')
  call h5proxy_session_run(s)
  call h5proxy_report_metric(s, 0, 'bytes', bytes)
  if (bytes /= 2.0_c_double * 100 * 32 * size) bad = bad + 1
  call h5proxy_session_close(s)
  call h5proxy_session_create(s, MPI_COMM_WORLD, 'vpic', options='DIM_7=1;file=x.h5', ierr=ierr)
  if (ierr /= H5PROXY_ERR_CONFIG .or. s%valid) bad = bad + 1
  call h5proxy_last_error(msg)
  if (index(msg, 'DIM_7') == 0) bad = bad + 1
  call h5proxy_finalize()
  call MPI_Allreduce(bad, all, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (all == 0) then
        write (*, '(a,i0,a,f0.0,a)') 'consumer_f: ', size, ' ranks, ', bytes, ' bytes: OK'
     else
        write (*, '(a)') 'consumer_f: FAILED'
     end if
  end if
  call MPI_Finalize(ierr)
  if (all /= 0) error stop 1
end program consumer
