!> @file h5proxy.f90
!> @brief Fortran interface of libh5proxy: module h5proxy.
!>
!> ISO_C_BINDING interfaces bound directly to the C ABI of include/h5proxy.h (no name
!> mangling), wrapped in subroutines that take Fortran strings (trimmed and NUL-terminated
!> here) and the Fortran MPI communicator integer (mpi: the integer; mpi_f08: comm%MPI_VAL).
!> Every public subroutine has an optional trailing ierr: when it is present it receives
!> the status (H5PROXY_OK or a negative H5PROXY_ERR_* code) and the caller decides; when it
!> is absent, a failure prints h5proxy's message to stderr and stops with `error stop`.
!> Names follow the C functions, except h5proxy_abi_version_get (Fortran names are
!> case-insensitive, and H5PROXY_ABI_VERSION is the constant).
!> The collective and threading rules are those of the C header.
!>
!>   use h5proxy
!>   type(h5proxy_session) :: s
!>   call h5proxy_session_create(s, MPI_COMM_WORLD, "vpic", &
!>        options="TIMESTEPS=4;DIM_1=1M;file=particles.h5")
!>   call h5proxy_session_run(s)
!>   call h5proxy_report_write(s, .true.)
!>   call h5proxy_session_close(s)
module h5proxy
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_float, c_double, c_size_t, c_char, &
       c_ptr, c_null_ptr, c_null_char, c_loc, c_f_pointer
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! Constants of include/h5proxy.h (a Go test in capi/ checks that the values agree).
  integer(c_int), parameter, public :: H5PROXY_VERSION_MAJOR = 0
  integer(c_int), parameter, public :: H5PROXY_VERSION_MINOR = 1
  integer(c_int), parameter, public :: H5PROXY_VERSION_PATCH = 0
  integer(c_int), parameter, public :: H5PROXY_ABI_VERSION = 1

  integer(c_int), parameter, public :: H5PROXY_OK = 0
  integer(c_int), parameter, public :: H5PROXY_ERR_INVALID_ARGUMENT = -1
  integer(c_int), parameter, public :: H5PROXY_ERR_INVALID_HANDLE = -2
  integer(c_int), parameter, public :: H5PROXY_ERR_CONFIG = -3
  integer(c_int), parameter, public :: H5PROXY_ERR_HDF5 = -4
  integer(c_int), parameter, public :: H5PROXY_ERR_MPI = -5
  integer(c_int), parameter, public :: H5PROXY_ERR_IO = -6
  integer(c_int), parameter, public :: H5PROXY_ERR_STATE = -7
  integer(c_int), parameter, public :: H5PROXY_ERR_UNSUPPORTED = -8
  integer(c_int), parameter, public :: H5PROXY_ERR_PANIC = -9
  integer(c_int), parameter, public :: H5PROXY_ERR_INTERNAL = -10
  integer(c_int), parameter, public :: H5PROXY_ERR_VERIFY = -11
  integer(c_int), parameter, public :: H5PROXY_ERR_THREAD_LEVEL = -12

  integer(c_int), parameter, public :: H5PROXY_PHASE_WRITE = 1
  integer(c_int), parameter, public :: H5PROXY_PHASE_READ = 2

  !> A session handle (h5proxy_session_t). Created by h5proxy_session_create, ended by
  !> h5proxy_session_close (or h5proxy_finalize). valid is .true. between the two.
  type, public :: h5proxy_session
     integer(c_int64_t) :: id = 0_c_int64_t
     logical :: valid = .false.
  end type h5proxy_session

  public :: h5proxy_abi_version_get, h5proxy_last_error, h5proxy_strerror
  public :: h5proxy_patterns_list, h5proxy_options_help, h5proxy_finalize
  public :: h5proxy_session_create, h5proxy_session_close
  public :: h5proxy_session_steps, h5proxy_session_rank, h5proxy_session_size
  public :: h5proxy_session_run, h5proxy_session_wait
  public :: h5proxy_phase_begin, h5proxy_phase_step, h5proxy_phase_end, h5proxy_compute
  public :: h5proxy_report_write, h5proxy_report_metric

  !> h5proxy_compute(session, seconds [, ierr]): seconds in single or double precision.
  interface h5proxy_compute
     module procedure compute_r8, compute_r4
  end interface h5proxy_compute

  interface
     integer(c_int) function c_abi_version() bind(C, name="h5proxy_abi_version")
       import :: c_int
     end function c_abi_version

     integer(c_int) function c_last_error_copy(buf, len, needed) bind(C, name="h5proxy_last_error_copy")
       import :: c_int, c_ptr, c_size_t
       type(c_ptr), value :: buf
       integer(c_size_t), value :: len
       integer(c_size_t), intent(out) :: needed
     end function c_last_error_copy

     type(c_ptr) function c_strerror(code) bind(C, name="h5proxy_strerror")
       import :: c_int, c_ptr
       integer(c_int), value :: code
     end function c_strerror

     integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
       import :: c_size_t, c_ptr
       type(c_ptr), value :: s
     end function c_strlen

     integer(c_int) function c_patterns_list(buf, len, needed) bind(C, name="h5proxy_patterns_list")
       import :: c_int, c_ptr, c_size_t
       type(c_ptr), value :: buf
       integer(c_size_t), value :: len
       integer(c_size_t), intent(out) :: needed
     end function c_patterns_list

     integer(c_int) function c_options_help(pattern, buf, len, needed) bind(C, name="h5proxy_options_help")
       import :: c_int, c_ptr, c_size_t
       type(c_ptr), value :: pattern, buf
       integer(c_size_t), value :: len
       integer(c_size_t), intent(out) :: needed
     end function c_options_help

     integer(c_int) function c_finalize() bind(C, name="h5proxy_finalize")
       import :: c_int
     end function c_finalize

     integer(c_int) function c_session_create_f(comm, pattern, options, config_file, session) &
          bind(C, name="h5proxy_session_create_f")
       import :: c_int, c_ptr, c_int64_t
       integer(c_int), value :: comm
       type(c_ptr), value :: pattern, options, config_file
       integer(c_int64_t), intent(out) :: session
     end function c_session_create_f

     integer(c_int) function c_session_close(session) bind(C, name="h5proxy_session_close")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
     end function c_session_close

     integer(c_int) function c_session_steps(session, steps) bind(C, name="h5proxy_session_steps")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
       integer(c_int), intent(out) :: steps
     end function c_session_steps

     integer(c_int) function c_session_rank(session, rank) bind(C, name="h5proxy_session_rank")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
       integer(c_int), intent(out) :: rank
     end function c_session_rank

     integer(c_int) function c_session_size(session, size) bind(C, name="h5proxy_session_size")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
       integer(c_int), intent(out) :: size
     end function c_session_size

     integer(c_int) function c_session_run(session) bind(C, name="h5proxy_session_run")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
     end function c_session_run

     integer(c_int) function c_session_wait(session) bind(C, name="h5proxy_session_wait")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
     end function c_session_wait

     integer(c_int) function c_phase_begin(session, phase) bind(C, name="h5proxy_phase_begin")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
       integer(c_int), value :: phase
     end function c_phase_begin

     integer(c_int) function c_phase_step(session, step) bind(C, name="h5proxy_phase_step")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
       integer(c_int), value :: step
     end function c_phase_step

     integer(c_int) function c_phase_end(session) bind(C, name="h5proxy_phase_end")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
     end function c_phase_end

     integer(c_int) function c_compute(session, seconds) bind(C, name="h5proxy_compute")
       import :: c_int, c_int64_t, c_double
       integer(c_int64_t), value :: session
       real(c_double), value :: seconds
     end function c_compute

     integer(c_int) function c_report_write(session, print_summary) bind(C, name="h5proxy_report_write")
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: session
       integer(c_int), value :: print_summary
     end function c_report_write

     integer(c_int) function c_report_metric(session, phase_index, metric, value) &
          bind(C, name="h5proxy_report_metric")
       import :: c_int, c_int64_t, c_ptr, c_double
       integer(c_int64_t), value :: session
       integer(c_int), value :: phase_index
       type(c_ptr), value :: metric
       real(c_double), intent(out) :: value
     end function c_report_metric
  end interface

contains

  ! ---- helpers ---------------------------------------------------------------------------

  !> Trimmed, NUL-terminated copy of a Fortran string, for passing with c_loc.
  subroutine to_c(s, buf)
    character(len=*), intent(in) :: s
    character(kind=c_char), allocatable, intent(out) :: buf(:)
    integer :: i, n
    n = len_trim(s)
    allocate(buf(n + 1))
    do i = 1, n
       buf(i) = s(i:i)
    end do
    buf(n + 1) = c_null_char
  end subroutine to_c

  !> Fortran string of the first n characters of a C buffer.
  subroutine from_c(buf, n, s)
    character(kind=c_char), intent(in) :: buf(:)
    integer(c_size_t), intent(in) :: n
    character(len=:), allocatable, intent(out) :: s
    integer :: i
    allocate(character(len=int(n)) :: s)
    do i = 1, int(n)
       s(i:i) = buf(i)
    end do
  end subroutine from_c

  !> Reports rc: into ierr when present, else stops on failure with h5proxy's message.
  subroutine check(rc, where, ierr)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: where
    integer, intent(out), optional :: ierr
    character(len=:), allocatable :: msg
    if (present(ierr)) then
       ierr = int(rc)
       return
    end if
    if (rc == H5PROXY_OK) return
    call h5proxy_last_error(msg)
    write (error_unit, '(a)') 'h5proxy: ' // where // ' failed: ' // msg
    error stop 1
  end subroutine check

  ! ---- library ---------------------------------------------------------------------------

  !> ABI version of the linked library (C: h5proxy_abi_version; compare with the constant
  !> H5PROXY_ABI_VERSION, whose name Fortran's case-insensitivity reserves). Never fails.
  subroutine h5proxy_abi_version_get(version)
    integer, intent(out) :: version
    version = int(c_abi_version())
  end subroutine h5proxy_abi_version_get

  !> Message of the calling thread's last failed h5proxy call ("" when none).
  subroutine h5proxy_last_error(msg)
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: needed, len
    integer(c_int) :: rc
    rc = c_last_error_copy(c_null_ptr, 0_c_size_t, needed)
    len = needed
    allocate(buf(max(len, 1_c_size_t)))
    rc = c_last_error_copy(c_loc(buf), len, needed)
    if (rc /= H5PROXY_OK) then
       msg = ''
       return
    end if
    call from_c(buf, min(needed, len) - 1, msg)
  end subroutine h5proxy_last_error

  !> Static description of a status code.
  subroutine h5proxy_strerror(code, msg)
    integer, intent(in) :: code
    character(len=:), allocatable, intent(out) :: msg
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n
    p = c_strerror(int(code, c_int))
    n = c_strlen(p)
    call c_f_pointer(p, chars, [n])
    call from_c(chars, n, msg)
  end subroutine h5proxy_strerror

  !> Registered pattern names, separated by new lines.
  subroutine h5proxy_patterns_list(names, ierr)
    character(len=:), allocatable, intent(out) :: names
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: needed, len
    integer(c_int) :: rc
    len = 0
    rc = c_patterns_list(c_null_ptr, 0_c_size_t, needed)
    if (rc == H5PROXY_OK) then
       len = needed
       allocate(buf(len))
       rc = c_patterns_list(c_loc(buf), len, needed)
    end if
    names = ''
    if (rc == H5PROXY_OK) call from_c(buf, min(needed, len) - 1, names)
    call check(rc, 'h5proxy_patterns_list', ierr)
  end subroutine h5proxy_patterns_list

  !> Help text of a pattern's keys, or of the session keys when pattern is "session".
  subroutine h5proxy_options_help(pattern, text, ierr)
    character(len=*), intent(in) :: pattern
    character(len=:), allocatable, intent(out) :: text
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable, target :: cpat(:), buf(:)
    integer(c_size_t) :: needed, len
    integer(c_int) :: rc
    call to_c(pattern, cpat)
    len = 0
    rc = c_options_help(c_loc(cpat), c_null_ptr, 0_c_size_t, needed)
    if (rc == H5PROXY_OK) then
       len = needed
       allocate(buf(len))
       rc = c_options_help(c_loc(cpat), c_loc(buf), len, needed)
    end if
    text = ''
    if (rc == H5PROXY_OK) call from_c(buf, min(needed, len) - 1, text)
    call check(rc, 'h5proxy_options_help', ierr)
  end subroutine h5proxy_options_help

  !> Close every session left open (collective over their communicators); call it before
  !> MPI_Finalize. Sessions it closes become invalid.
  subroutine h5proxy_finalize(ierr)
    integer, intent(out), optional :: ierr
    call check(c_finalize(), 'h5proxy_finalize', ierr)
  end subroutine h5proxy_finalize

  ! ---- sessions --------------------------------------------------------------------------

  !> Create a session on a Fortran MPI communicator. Collective on comm.
  !> pattern: a registered name, or "" to take the config file's. options: KEY=VALUE items
  !> separated by ';' (optional). config_file: native JSON configuration (optional).
  subroutine h5proxy_session_create(session, comm, pattern, options, config_file, ierr)
    type(h5proxy_session), intent(out) :: session
    integer, intent(in) :: comm
    character(len=*), intent(in) :: pattern
    character(len=*), intent(in), optional :: options, config_file
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable, target :: cpat(:), copt(:), cfile(:)
    type(c_ptr) :: popt, pfile
    integer(c_int64_t) :: id
    integer(c_int) :: rc
    call to_c(pattern, cpat)
    popt = c_null_ptr
    pfile = c_null_ptr
    if (present(options)) then
       call to_c(options, copt)
       popt = c_loc(copt)
    end if
    if (present(config_file)) then
       call to_c(config_file, cfile)
       pfile = c_loc(cfile)
    end if
    rc = c_session_create_f(int(comm, c_int), c_loc(cpat), popt, pfile, id)
    session%id = id
    session%valid = rc == H5PROXY_OK
    call check(rc, 'h5proxy_session_create', ierr)
  end subroutine h5proxy_session_create

  !> End a session. Collective. The session is invalid afterwards whatever the status.
  subroutine h5proxy_session_close(session, ierr)
    type(h5proxy_session), intent(inout) :: session
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_session_close(session%id)
    session%valid = .false.
    call check(rc, 'h5proxy_session_close', ierr)
  end subroutine h5proxy_session_close

  !> Configured number of steps. Local.
  subroutine h5proxy_session_steps(session, steps, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(out) :: steps
    integer, intent(out), optional :: ierr
    integer(c_int) :: n
    integer(c_int) :: rc
    n = -1
    rc = c_session_steps(session%id, n)
    steps = int(n)
    call check(rc, 'h5proxy_session_steps', ierr)
  end subroutine h5proxy_session_steps

  !> Rank in the session's communicator. Local.
  subroutine h5proxy_session_rank(session, rank, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(out) :: rank
    integer, intent(out), optional :: ierr
    integer(c_int) :: n
    integer(c_int) :: rc
    n = -1
    rc = c_session_rank(session%id, n)
    rank = int(n)
    call check(rc, 'h5proxy_session_rank', ierr)
  end subroutine h5proxy_session_rank

  !> Number of ranks of the session. Local.
  subroutine h5proxy_session_size(session, size, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(out) :: size
    integer, intent(out), optional :: ierr
    integer(c_int) :: n
    integer(c_int) :: rc
    n = -1
    rc = c_session_size(session%id, n)
    size = int(n)
    call check(rc, 'h5proxy_session_size', ierr)
  end subroutine h5proxy_session_size

  !> Run every configured phase (write, then verified read by default). Collective.
  subroutine h5proxy_session_run(session, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(out), optional :: ierr
    call check(c_session_run(session%id), 'h5proxy_session_run', ierr)
  end subroutine h5proxy_session_run

  !> Wait for every I/O operation issued so far. Local.
  subroutine h5proxy_session_wait(session, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(out), optional :: ierr
    call check(c_session_wait(session%id), 'h5proxy_session_wait', ierr)
  end subroutine h5proxy_session_wait

  ! ---- phases ----------------------------------------------------------------------------

  !> Begin a phase (H5PROXY_PHASE_WRITE or H5PROXY_PHASE_READ). Collective.
  subroutine h5proxy_phase_begin(session, phase, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(in) :: phase
    integer, intent(out), optional :: ierr
    call check(c_phase_begin(session%id, int(phase, c_int)), 'h5proxy_phase_begin', ierr)
  end subroutine h5proxy_phase_begin

  !> Issue the I/O of step (0-based, in order) of the running phase. Collective.
  subroutine h5proxy_phase_step(session, step, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(in) :: step
    integer, intent(out), optional :: ierr
    call check(c_phase_step(session%id, int(step, c_int)), 'h5proxy_phase_step', ierr)
  end subroutine h5proxy_phase_step

  !> End the running phase (verified reads check every rank's verdict). Collective.
  subroutine h5proxy_phase_end(session, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(out), optional :: ierr
    call check(c_phase_end(session%id), 'h5proxy_phase_end', ierr)
  end subroutine h5proxy_phase_end

  !> Emulate compute for seconds (negative: the configured compute_time). Local.
  subroutine compute_r8(session, seconds, ierr)
    type(h5proxy_session), intent(in) :: session
    real(c_double), intent(in) :: seconds
    integer, intent(out), optional :: ierr
    call check(c_compute(session%id, seconds), 'h5proxy_compute', ierr)
  end subroutine compute_r8

  !> h5proxy_compute with a single-precision duration.
  subroutine compute_r4(session, seconds, ierr)
    type(h5proxy_session), intent(in) :: session
    real(c_float), intent(in) :: seconds
    integer, intent(out), optional :: ierr
    call check(c_compute(session%id, real(seconds, c_double)), 'h5proxy_compute', ierr)
  end subroutine compute_r4

  ! ---- reports ---------------------------------------------------------------------------

  !> Reduce and write the reports; rank 0 prints the summary when print_summary. Collective.
  !> Flush your own output unit first: the summary goes through C stdio.
  subroutine h5proxy_report_write(session, print_summary, ierr)
    type(h5proxy_session), intent(in) :: session
    logical, intent(in) :: print_summary
    integer, intent(out), optional :: ierr
    integer(c_int) :: flag
    flag = 0
    if (print_summary) flag = 1
    call check(c_report_write(session%id, flag), 'h5proxy_report_write', ierr)
  end subroutine h5proxy_report_write

  !> One reduced metric (SI units) of finished phase phase_index (0-based). Collective.
  subroutine h5proxy_report_metric(session, phase_index, metric, value, ierr)
    type(h5proxy_session), intent(in) :: session
    integer, intent(in) :: phase_index
    character(len=*), intent(in) :: metric
    real(c_double), intent(out) :: value
    integer, intent(out), optional :: ierr
    character(kind=c_char), allocatable, target :: cmetric(:)
    call to_c(metric, cmetric)
    value = 0
    call check(c_report_metric(session%id, int(phase_index, c_int), c_loc(cmetric), value), &
         'h5proxy_report_metric', ierr)
  end subroutine h5proxy_report_metric

end module h5proxy
