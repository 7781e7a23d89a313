"""energy_rt: measure the energy of named regions of your own job.

The Python face of the C runtime (runtime/include/energy_rt.h, loaded from
libenergy_rt.so.0 with ctypes; the standard library only). Shaped like
Zeus's ZeusMonitor (its arguments, windows and Measurement fields; one GPU
per process)::

    from energy_rt import Monitor
    monitor = Monitor(gpu_indices=[0])          # or device="sim:a100"
    monitor.begin_window("step")
    train_step()
    m = monitor.end_window("step")              # a Measurement
    print(m.time, m.total_energy, m.s, m.d)

plus ``with energy_rt.region("stage0.forward"):`` and ``@energy_rt.region(
"name")`` for functions, ``flush("db-%r.json")`` (a signature DB per rank,
docs/SIGNATURE-DB.md) and ``rank()``.

Windows nest and may share a name across calls. When PyTorch is importable
and CUDA is in use, window edges call ``torch.cuda.synchronize()`` unless
``sync_execution=False``: without it the GPU work launched inside a window
may finish after its end, and the window under-reports energy. While
PyTorch's profiler records, each window is also a range of its name in the
profile (``torch.profiler.record_function``'s, a trace's user_annotation):
``energy-translate --import-kineto trace.json --regions REGEX`` groups the
kernels launched inside it into one task of that name, which a plan made
from the trace gives back by name (docs/SCHED.md).

On a GPU ("cuda:<i>") the runtime samples NVML's energy counter, which
changes every ~100 ms: a window's energy is read off the counter's curve
once the counter has passed the window's end, so ``end_window`` returns at
once and the Measurement's energy waits (up to about 100 ms) when first
read -- windows in a loop whose energies are read later, or only through
``flush``, never wait; simulated devices ("sim:a100", "sim:a40", "sim:h100", "sim:h200",
"sim:b200")
answer at once with the model's exact energy, and their time is the
simulated time of the work charged to them (``sim_run``), not wall time.
Create the Monitor once the process holds its CUDA context (after moving
the model to the GPU): the static power is measured then, and a GPU
without a context idles lower (an H200: 80 W instead of 124 W). The library is found from ENERGY_RT_LIBRARY, next to this
package (a build's ``build/python``), in the install's ``lib`` directory, or
by the dynamic loader; failing all, ImportError says where it looked.
"""

import ctypes
import ctypes.util
import functools
import inspect
import itertools
import operator
import os
import sys
import threading
from dataclasses import dataclass, field

__all__ = ["EnergyRuntimeError", "WindowError", "Measurement", "Monitor", "region",
           "flush", "rank", "step", "version", "library_path", "sim_run",
           "load_plan", "write_metrics", "metrics_port"]


class EnergyRuntimeError(RuntimeError):
    """A C API call failed; the message is the runtime's own."""


class WindowError(EnergyRuntimeError, ValueError):
    """A window begun twice, or ended (or aborted) without being open: a
    ValueError too, as Zeus's ZeusMonitor raises for these, so that code
    ported from Zeus catches it as it did."""


def _candidates():
    env = os.environ.get("ENERGY_RT_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libenergy_rt.so.0")
    # Installed: <prefix>/lib/python3.X/dist-packages/energy_rt -> <prefix>/lib
    for up in ("../../..", "../../../..", "../../lib", "../lib"):
        yield os.path.normpath(os.path.join(here, up, "libenergy_rt.so.0"))
    found = ctypes.util.find_library("energy_rt")
    if found:
        yield found


def _load():
    tried = []
    env = os.environ.get("ENERGY_RT_LIBRARY")
    if env and os.path.sep in env and not os.path.exists(env):
        # A path that is not there: another copy found on the way would
        # not be the library asked for. (A bare name is the loader's to
        # find on its search path.)
        raise ImportError("energy_rt: ENERGY_RT_LIBRARY=%r does not exist"
                          % env)
    for path in _candidates():
        tried.append(path)
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried[-1] += " (%s)" % e
    raise ImportError(
        "energy_rt: cannot find libenergy_rt.so.0; looked in: "
        + "; ".join(tried)
        + ". From a build: make build and set PYTHONPATH=build/python; from an "
          "install: the library belongs in PREFIX/lib; or set "
          "ENERGY_RT_LIBRARY to the library's path.")


_lib, library_path = _load()
_c = ctypes
for _name, _args in {
        "er_init": [_c.c_char_p], "er_begin": [_c.c_char_p],
        "er_end": [_c.c_char_p], "er_abort": [_c.c_char_p],
        "er_flush": [_c.c_char_p],
        "er_result": [_c.c_char_p, _c.POINTER(_c.c_double),
                      _c.POINTER(_c.c_double), _c.POINTER(_c.c_uint)],
        "er_end_measure": [_c.c_char_p, _c.POINTER(_c.c_double),
                           _c.POINTER(_c.c_double), _c.POINTER(_c.c_int)],
        "er_end_ticket": [_c.c_char_p, _c.POINTER(_c.c_ulonglong),
                          _c.POINTER(_c.c_double), _c.POINTER(_c.c_int)],
        "er_begin_in": [_c.c_uint, _c.c_char_p],
        "er_abort_in": [_c.c_uint, _c.c_char_p],
        "er_end_ticket_in": [_c.c_uint, _c.c_char_p, _c.POINTER(_c.c_ulonglong),
                             _c.POINTER(_c.c_double), _c.POINTER(_c.c_int)],
        "er_end_measure_in": [_c.c_uint, _c.c_char_p, _c.POINTER(_c.c_double),
                              _c.POINTER(_c.c_double), _c.POINTER(_c.c_int)],
        "er_ticket_energy": [_c.c_ulonglong, _c.c_int,
                             _c.POINTER(_c.c_double)],
        "er_ticket_release": [_c.c_ulonglong],
        "er_rank": [], "er_step": [], "er_write_metrics": [_c.c_char_p],
        "er_metrics_port": [], "er_exit_warnings": [], "er_restore": [],
        "er_sim_run": [_c.c_double, _c.c_double],
        "er_plan_load": [_c.c_char_p],
        "er_sm_clock": [_c.POINTER(_c.c_int), _c.POINTER(_c.c_uint)],
        "er_static_power": [_c.POINTER(_c.c_double)]}.items():
    getattr(_lib, _name).argtypes = _args
    getattr(_lib, _name).restype = _c.c_int
for _name in ("er_last_error", "er_device", "er_version"):
    getattr(_lib, _name).argtypes = []
    getattr(_lib, _name).restype = _c.c_char_p
_lib.er_shutdown.argtypes = []
_lib.er_shutdown.restype = None


def _check(rc):
    if rc != 0:
        raise EnergyRuntimeError(_lib.er_last_error().decode("utf-8", "replace"))


def _name(name):
    if not isinstance(name, str) or not name or "\0" in name:
        raise ValueError("a window needs a non-empty str name without NUL "
                         "characters, got %r" % (name,))
    return name.encode("utf-8")


def version():
    """"energy 0.1.0 (git <rev>)" of the loaded library."""
    return _lib.er_version().decode()


# The package's version, as packaging tools read it: the loaded library's
# ("0.1.0"; the package and the library are built and installed together).
__version__ = version().split()[1] if len(version().split()) > 1 else "0"


def rank():
    """The process's rank from RANK, LOCAL_RANK, SLURM_PROCID or
    OMPI_COMM_WORLD_RANK (0 if none); ValueError if the first one set is
    not a non-negative integer."""
    r = _lib.er_rank()
    if r < 0:
        raise ValueError("the rank's environment variable (RANK, LOCAL_RANK, "
                         "SLURM_PROCID or OMPI_COMM_WORLD_RANK, the first "
                         "set) is not a non-negative integer below 2^31")
    return r


@dataclass
class Measurement:
    """One window (Zeus's ``Measurement`` fields, plus the calculus').

    time: s; total_energy: J; energy: J per device index (one device per
    process); s: the static power measured at start-up (W); d: dynamic
    energy, total_energy - s x time (J); clock_mhz: the SM clock when it
    began (a window across a clock change the runtime made -- a profile's
    step, a planned region inside it, the reset before a signal handler of
    the program's -- counts in the region's totals but
    in no clock's DB entry: a signature holds one clock).

    On a GPU the energy is known once NVML's counter (updated every ~100
    ms) has passed the window's end: ``end_window`` returns at once, and
    ``total_energy``, ``energy`` and ``d`` wait for the counter when first
    read (up to ~100 ms), so windows whose energy is read later, or only
    through ``flush``, cost no waiting. ``ready`` says without waiting
    whether it is known. The runtime keeps the 2^20 most recent unread
    energies: read a window's within a million windows of its end (a copy
    or a pickle reads it first)."""
    name: str
    time: float
    total_energy: float
    energy: dict = field(default_factory=dict)
    s: float = 0.0
    d: float = 0.0
    clock_mhz: int = 0
    device: str = ""
    # Zeus's CPU and DRAM fields: energy_rt measures GPUs only.
    cpu_energy: dict = None
    dram_energy: dict = None

    @property
    def gpu_energy(self):
        """Zeus's name for ``energy`` (J per GPU index)."""
        return self.energy

    @property
    def ready(self):
        """Whether the energy is known (reading it would not wait)."""
        return self.__dict__.get("_ticket") is None or self._resolve(False)

    @classmethod
    def _known(cls, name, time, energy, index, s, clock_mhz, device):
        """A window whose energy is known (simulated devices), built
        without __init__ (its properties' setters cost a window pair a
        microsecond)."""
        m = object.__new__(cls)
        m.__dict__ = {"name": name, "time": time, "total_energy": energy,
                      "energy": {index: energy}, "s": s,
                      "d": energy - s * time, "clock_mhz": clock_mhz,
                      "device": device, "cpu_energy": None,
                      "dram_energy": None}
        return m

    @classmethod
    def _later(cls, ticket, index, **fields):
        """A window whose energy the C runtime gives for `ticket` (J on GPU
        `index`) when first read."""
        # Built without __init__ (a window pair costs microseconds): the
        # fields set directly, the energies on first read.
        m = object.__new__(cls)
        m.__dict__.update(cls._defaults, _ticket=(ticket, index), **fields)
        return m

    def _resolve(self, wait=True):
        # One reader at a time: the ticket is read once, and a second
        # thread finds the energy the first stored.
        with _resolving:
            if self.__dict__.get("_ticket") is None:
                return True
            ticket, index = self.__dict__["_ticket"]
            e = _c.c_double()
            rc = _lib.er_ticket_energy(ticket, 1 if wait else 0, _c.byref(e))
            if rc == 1:
                return False
            _check(rc)
            self.__dict__.update(_ticket=None, total_energy=e.value,
                                 energy={index: e.value},
                                 d=e.value - self.s * self.time)
            return True

    def __getstate__(self):
        # copy, deepcopy and pickle take the energy, not the ticket (a copy
        # reading it would leave the original none; another process's
        # runtime would answer for its own window of that number).
        if self.__dict__.get("_ticket") is not None:
            self._resolve()
        state = dict(self.__dict__)
        state.pop("_ticket", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __del__(self):
        # Never read: the runtime forgets its energy (the window still
        # counts in its region's totals).
        t = self.__dict__.get("_ticket")
        if t is not None:
            try:
                _lib.er_ticket_release(t[0])
            except Exception:  # interpreter shutdown: the module is gone
                pass


def _resolved_on_read(name):
    # A dataclass field whose value may wait for the C runtime's counter:
    # stored in the instance's dict, resolved on first read.
    def get(self):
        if self.__dict__.get("_ticket") is not None:
            self._resolve()
        return self.__dict__[name]

    def set(self, value):
        self.__dict__[name] = value
    return property(get, set)


for _field in ("total_energy", "energy", "d"):
    setattr(Measurement, _field, _resolved_on_read(_field))
# The fields a Measurement made by _later is not given.
Measurement._defaults = {"cpu_energy": None, "dram_energy": None}


_state = {"device": None, "requested": None}
_resolving = threading.Lock()
# Each Monitor's set of window names in the runtime: the first's is the C
# API's own (set 0, whose calls take one argument less), the others' their
# own.
_owners = itertools.count(0)


def _forked_child():
    # The C runtime refuses a forked child until er_init runs in it (its
    # counters and clock state belong to the parent): forget the parent's
    # device, so that the next Monitor, window or step initializes anew.
    # A child of a process that measures (a DataLoader's worker) has its
    # parent's rank, so the parent's flush path: it writes beside it
    # (PATH.pid<N>) rather than over it, at its own exit (this module's
    # handler and the C runtime's both read this). A child of a process
    # that does not measure (a rank that a launcher forked) is a process
    # of its own.
    measured = _state["device"] is not None
    _state["device"] = None
    _state.pop("monitor_index", None)  # the child's own Monitors key anew
    _state["forked"] = measured
    _state["worker_flush"] = _state["flushed"] = False
    region._monitor = None
    # The parent's exit-through-handlers on SIGTERM and SIGHUP are not a
    # child's: a multiprocessing child stopped by terminate() must end as
    # by default (-15), not raise SystemExit that a bare except swallows.
    import signal
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is _exit_on_signal:
            signal.signal(sig, signal.SIG_DFL)
    _state["exit_signals"] = False
    if measured:
        _beside_parent()


def _beside_parent():
    path = os.environ.get("ENERGY_RT_FLUSH_AT_EXIT")
    if path:
        os.environ["ENERGY_RT_FLUSH_AT_EXIT"] = path + ".pid%d" % os.getpid()


os.register_at_fork(after_in_child=_forked_child)
# Set by a process once it measures, so that a spawned child can tell a
# measuring parent's worker (beside the parent's shard) from a rank that a
# launcher which measures nothing started (torch.multiprocessing.spawn).
_MEASURING = "ENERGY_RT_MEASURING_PID"
_MEASURING_DEVICE = "ENERGY_RT_MEASURING_DEVICE"


def _dataloader_worker():
    """This process's DataLoader worker id, None outside a DataLoader's
    worker (or before PyTorch's data module is imported)."""
    data = sys.modules.get("torch.utils.data")
    info = data.get_worker_info() if data is not None else None
    return info.id if info is not None else None


def _worker_seed():
    """A worker's simulated noise is its own: workers of one rank would
    otherwise draw the same noise and write the same shard. With
    ENERGY_RT_SIM_SEED given, derived from it and the DataLoader worker id
    (a seeded run is reproduced; other workers: their pid); else from the
    rank's seed and the pid (a DataLoader re-creates its workers each
    epoch under the same ids)."""
    given = os.environ.get("ENERGY_RT_SIM_SEED", "")
    wid = _dataloader_worker() if given.isdigit() else None
    base = int(given) if given.isdigit() else _lib.er_rank() + 1
    key = (wid + 1) if wid is not None else (os.getpid() << 20)
    return (base * 0x9E3779B97F4A7C15 + key) % (1 << 64)


def _adopt_parent():
    """In a multiprocessing child: its parent process (None elsewhere). A
    spawned or forkserver worker of a measuring parent becomes its worker
    here: beside its shard, on its device."""
    mp = sys.modules.get("multiprocessing")
    parent = mp.parent_process() if mp is not None else None
    # A DataLoader's worker is its rank's worker even where the rank had not
    # measured yet when it started it (its first region inside the loop).
    if (not _state.get("forked") and parent is not None
            and (os.environ.get(_MEASURING) == str(parent.pid)
                 or _dataloader_worker() is not None)):
        _state["forked"] = True
        _beside_parent()
        if not _state["requested"]:
            _state["requested"] = os.environ.get(_MEASURING_DEVICE) or None
    if _state.get("forked"):
        # A worker measures its regions; it does not sweep clocks (its
        # rank does, on the device they share) nor take a rank's plan.
        for name in ("ENERGY_RT_PROFILE_CLOCKS",
                     "ENERGY_RT_PROFILE_POWER_LIMITS",
                     "ENERGY_RT_POWER_LIMIT_CHOICE",
                     "ENERGY_RT_PROFILE_SYNC_DIR"):
            os.environ.pop(name, None)
    return parent


def _flush_in_worker():
    """A worker of a measuring process (a DataLoader's among them) started
    by spawn or forkserver imports this module afresh with its parent's
    environment: it writes beside its parent's shard too. multiprocessing
    ends forked and forkserver children (workers and ranks alike) with
    os._exit, which skips atexit; their exit path runs multiprocessing's own
    finalizers, registered after the child starts (it clears those
    inherited from the parent), so a child's first measurement registers
    the flush there."""
    parent = _adopt_parent()
    util = sys.modules.get("multiprocessing.util")
    if ((_state.get("forked") or parent is not None)
            and not _state.get("worker_flush") and util
            and os.environ.get("ENERGY_RT_FLUSH_AT_EXIT")):
        util.Finalize(None, _flush_at_exit, exitpriority=100)
        _state["worker_flush"] = True
        _flush_worker_on_sigterm()


def _flush_worker_on_sigterm():
    """A worker still running when its parent ends is stopped by SIGTERM
    (multiprocessing terminates daemonic children at exit: a DataLoader's
    persistent workers, or those of an iterator left open), which ends it
    without any exit path. The worker writes its shard first, then ends as
    it would have: a DataLoader's worker with status 0, as PyTorch's
    worker handler exits when its parent stops it (PyTorch reads anything
    else as a crash), any other by the default action. A handler the
    program set itself is left alone (a forked worker's record of its
    rank's handler, _exit_on_signal, is stale: PyTorch's worker replaces it
    from C); only the main thread can set one."""
    import signal
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous not in (signal.SIG_DFL, None, _exit_on_signal):
        return

    def on_sigterm(signum, frame):
        _flush_at_exit()
        data = sys.modules.get("torch.utils.data")
        if previous is None or (data is not None
                                and data.get_worker_info() is not None):
            os._exit(0)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, on_sigterm)


def _same_device(a, b):
    """Whether two device names name one device: the simulated kinds are
    case-insensitive and a100 / h100 are also a100-sxm4 / h100-sxm5."""
    def canonical(name):
        name = name.strip()
        if name.lower().startswith("sim:"):
            kind = name[4:].lower()
            return "sim:" + {"a100-sxm4": "a100", "h100-sxm5": "h100"}.get(
                kind, kind)
        return name
    return canonical(a) == canonical(b)


def _flush_at_exit():
    # Python's exit paths (an uncaught exception, KeyboardInterrupt,
    # sys.exit, SIGTERM below) run this; the C runtime's own at-exit
    # warnings and flush do not run when Python ends itself with SIGINT
    # after a KeyboardInterrupt.
    if _state["device"] is not None and not _state.get("forked"):
        _lib.er_exit_warnings()
    path = os.environ.get("ENERGY_RT_FLUSH_AT_EXIT")
    if path and _state["device"] is not None and not _state.get("flushed"):
        # Once: a worker's finalizer and atexit may both run it.
        _state["flushed"] = True
        if _state.get("forked"):
            sys.stderr.write("energy_rt: a child process (pid %d) writes its "
                             "measurements to %s\n" % (
                                 os.getpid(),
                                 path.replace("%r", str(_lib.er_rank()))))
        if _lib.er_flush(path.encode("utf-8")) != 0:
            sys.stderr.write("energy_rt: ENERGY_RT_FLUSH_AT_EXIT: %s\n" %
                             _lib.er_last_error().decode("utf-8", "replace"))


def _restore_at_exit():
    # The clocks and power limits the runtime changed (a profile's, a
    # plan's), restored after the flush above: C's exit handlers, which
    # restore them too, do not run when Python ends itself with SIGINT
    # after an uncaught KeyboardInterrupt.
    if _state["device"] is not None and not _state.get("forked"):
        _lib.er_restore()


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)


def _register_flush_at_exit():
    if _state.get("atexit") or not (
            os.environ.get("ENERGY_RT_FLUSH_AT_EXIT")
            or os.environ.get("ENERGY_RT_PROFILE_CLOCKS")
            or os.environ.get("ENERGY_RT_PROFILE_POWER_LIMITS")):
        return
    import atexit
    atexit.register(_flush_at_exit)
    _state["atexit"] = True
    _exit_through_handlers_on_signals()


def _exit_through_handlers_on_signals():
    """SIGTERM (torchrun's way of stopping the other ranks when one fails)
    and SIGHUP end Python without its exit handlers; where the program has
    not set its own handler, it exits through them instead (SystemExit), so
    the shard is written. Only the main thread can set a handler, so this
    runs at import as well as at the first measurement (which may be a
    thread's). Installed before the runtime starts: its clock guard
    (runtime/Guard.cpp) then takes the signal first, restores the clocks at
    once (even while Python is blocked in C code), and passes it on to this
    handler. Not in a multiprocessing child: its parent stops it with
    SIGTERM (a DataLoader's at shutdown) and reads exit status 143 as a
    crash."""
    import signal
    if _state.get("exit_signals") or \
            threading.current_thread() is not threading.main_thread():
        return
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        return
    _state["exit_signals"] = True
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _exit_on_signal)


def _ensure(device=None):
    if device is not None and (not isinstance(device, str) or "\0" in device):
        raise ValueError("device=%r: a device name (cuda:<i>, sim:a100, "
                         "...) without NUL characters" % (device,))
    if _state["device"] is None:
        # After a fork the child measures the device its parent asked for
        # (a spawned worker too: _adopt_parent).
        _adopt_parent()
        device = device or _state["requested"]
        if not device and not os.environ.get("ENERGY_RT_DEVICE"):
            raise EnergyRuntimeError(
                "no device: create a Monitor (device=... or gpu_indices=...) "
                "first, or set ENERGY_RT_DEVICE (cuda:<i>, sim:a100, "
                "sim:a40, sim:h100, sim:h200, sim:b200)")
        if not _state.get("restore_atexit"):
            # Registered first, so it runs after the flush (LIFO).
            import atexit
            atexit.register(_restore_at_exit)
            _state["restore_atexit"] = True
        # A multiprocessing child (a rank started by fork, a worker) ends
        # with os._exit, past atexit: its finalizers restore instead, after
        # its flush's (exitpriority 100). Those a forked child inherits are
        # cleared when it starts, so each registers its own.
        mp = sys.modules.get("multiprocessing")
        util = sys.modules.get("multiprocessing.util")
        if (mp is not None and util is not None
                and mp.parent_process() is not None
                and _state.get("restore_finalizer") != os.getpid()):
            util.Finalize(None, _restore_at_exit, exitpriority=1)
            _state["restore_finalizer"] = os.getpid()
        _register_flush_at_exit()
        _flush_in_worker()
        if _state.get("forked"):
            given = os.environ.get("ENERGY_RT_SIM_SEED")
            os.environ["ENERGY_RT_SIM_SEED"] = str(_worker_seed())
            # A worker neither serves metrics nor writes the rank's
            # textfile (its parent does): said to the runtime for this call.
            os.environ["ENERGY_RT_WORKER"] = "1"
            try:
                _check(_lib.er_init(device.encode() if device else None))
            finally:
                os.environ.pop("ENERGY_RT_WORKER", None)
                # Its own workers derive theirs from what was given.
                if given is None:
                    os.environ.pop("ENERGY_RT_SIM_SEED", None)
                else:
                    os.environ["ENERGY_RT_SIM_SEED"] = given
        else:
            _check(_lib.er_init(device.encode() if device else None))
        _state["device"] = _lib.er_device().decode()
        _state["requested"] = device or os.environ.get("ENERGY_RT_DEVICE")
        if (_state["requested"] or "").lower() == "cuda":
            # This process's GPU, as the runtime opened it: named by its
            # index.
            _state["requested"] = "cuda:%d" % _own_gpu_index()
        os.environ[_MEASURING] = str(os.getpid())
        os.environ[_MEASURING_DEVICE] = _state["requested"] or ""
    elif device and not _same_device(device, _state["requested"] or ""):
        raise EnergyRuntimeError(
            "this process already measures %s (%s); energy_rt measures one "
            "device per process, so a Monitor for %r is refused" % (
                _state["device"], _state["requested"] or "ENERGY_RT_DEVICE",
                device))
    return _state["device"]


def _own_gpu_index():
    """This process's GPU in CUDA's numbering, as the runtime resolves
    "cuda": a process shown one GPU (CUDA_VISIBLE_DEVICES naming one, as
    Slurm's --gpus-per-task does) has it as 0 whatever its LOCAL_RANK;
    otherwise torchrun's one per process (LOCAL_RANK), else 0."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible and "," not in visible:
        return 0
    local = os.environ.get("LOCAL_RANK", "0")
    return int(local) if local.isdigit() and int(local) <= 4095 else 0


def _torch_sync(index=None):
    """Waits for PyTorch's queued CUDA work, if the program uses it. Looked
    up at each window edge, not once: a Monitor is often made before the
    model moves to the GPU (CUDA not yet initialized then), and a program
    that never imports torch has no CUDA work of torch's to wait for (nor
    pays for importing it)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        # The measured GPU's work (Zeus syncs each of its gpu_indices): a
        # model on cuda:1 without set_device is not torch's current device.
        torch.cuda.synchronize(index)


_profiler_on = None  # torch.autograd._profiler_enabled, once torch is seen


def _profiler_range(name):
    """While PyTorch's profiler records, a range of its own named as the
    window (torch.profiler.record_function's: a trace's user_annotation),
    so that `energy-translate --import-kineto --regions` groups the
    window's kernels into the region it names; else None. torch is not
    imported here: only a process that did import it can be profiling.
    Never raises: a profiler's fault costs the range, not the window."""
    global _profiler_on
    try:
        if _profiler_on is None:
            autograd = getattr(sys.modules.get("torch"), "autograd", None)
            if autograd is None:  # not imported (or not yet whole)
                return None
            _profiler_on = getattr(autograd, "_profiler_enabled",
                                   lambda: False)
        if not _profiler_on():
            return None
        return sys.modules["torch"].ops.profiler._record_function_enter_new(
            name, None)
    except Exception:  # a torch without it, or a profiler that failed
        return None


def _profiler_range_end(handle):
    if handle is None:
        return
    try:
        sys.modules["torch"].ops.profiler._record_function_exit(handle)
    except Exception:  # the profiler's fault: the window stands
        pass


class _ThreadWindows:
    """One thread's open windows and its reused out-parameters (a window
    pair costs a few microseconds)."""
    __slots__ = ("open", "ranges", "e", "t", "clock", "ticket", "refs")

    def __init__(self):
        self.open = {}
        self.ranges = {}  # the profiler's range of each window, where one
        self.e, self.t, self.clock = _c.c_double(), _c.c_double(), _c.c_int()
        self.ticket = _c.c_ulonglong()
        self.refs = (_c.byref(self.e), _c.byref(self.t),
                     _c.byref(self.clock), _c.byref(self.ticket))


class Monitor:
    """Measurement windows on one device per process.

    gpu_indices: Zeus's argument; this process's GPU (one index; default
    LOCAL_RANK or 0), used when `device` is not given and ENERGY_RT_DEVICE
    is unset. device: "sim:a100" | "sim:a40" | "sim:h100" | "sim:h200" |
    "sim:b200" |
    "cuda:<i>" | "cuda" (this process's GPU). GPU indices are CUDA's, as
    torch.cuda numbers them: where CUDA_VISIBLE_DEVICES is set, the i-th
    GPU it lists.
    sync_execution: synchronize CUDA at window edges when PyTorch uses it
    (the measured GPU's work; torch's current device where the device is
    simulated), and before a cancelled window is dropped.
    sync_execution_with: Zeus's argument; "torch" only.
    Positional arguments come in ZeusMonitor's order (gpu_indices,
    cpu_indices, approx_instant_energy, log_file, sync_execution_with);
    sync_execution and device are keywords.
    With ENERGY_RT_FLUSH_AT_EXIT set, the DB is written at exit however
    the process exits (SIGTERM included, where the program has no SIGTERM
    handler of its own).
    """

    def __init__(self, gpu_indices=None, cpu_indices=None,
                 approx_instant_energy=False, log_file=None,
                 sync_execution_with="torch", *, sync_execution=True,
                 device=None):
        # Without a device: the one this process already measures, else
        # ENERGY_RT_DEVICE, else this process's GPU. Set but empty is a
        # mistake (a script's unset variable), not "this process's GPU".
        if (os.environ.get("ENERGY_RT_DEVICE") == "" and device is None
                and gpu_indices is None and _state["device"] is None):
            raise EnergyRuntimeError(
                "ENERGY_RT_DEVICE is set but empty: name a device (cuda:<i>, "
                "sim:a100, ...) or unset it")
        # Zeus's other arguments: CPUs are not measured (an empty list, as
        # Zeus takes for "none", is fine); no log file is written (flush()
        # writes the DB); approx_instant_energy has no use here (windows
        # read the energy counter, however short).
        if cpu_indices:
            raise ValueError("cpu_indices=%r: energy_rt measures GPUs only "
                             "(give [] or leave it out)" % (cpu_indices,))
        if log_file is not None:
            raise ValueError("log_file: energy_rt writes no per-window log; "
                             "flush(path) writes the signature DB")
        if gpu_indices is not None and not isinstance(
                gpu_indices, (list, tuple, str, bytes)):
            try:  # one index, not in a list (Zeus takes lists only)
                gpu_indices = [operator.index(gpu_indices)]
            except TypeError:
                pass
        if sync_execution_with != "torch":
            raise ValueError("sync_execution_with=%r: energy_rt "
                             "synchronizes PyTorch's CUDA work only "
                             "('torch')" % (sync_execution_with,))
        if gpu_indices is not None and (
                isinstance(gpu_indices, (str, bytes))
                or len(gpu_indices) != 1):
            raise ValueError("energy_rt measures one GPU per process: run "
                             "one process per GPU (torchrun) and give "
                             "each its index; got %r" % (gpu_indices,))
        if gpu_indices is not None:
            # Any integer type (numpy's too), not a bool or a float.
            try:
                index = operator.index(gpu_indices[0])
            except TypeError:
                index = -1
            if isinstance(gpu_indices[0], bool) or index < 0:
                raise ValueError("gpu_indices=%r: a GPU index is an integer "
                                 "from 0" % (gpu_indices,))
            gpu_indices = [index]
        if _state["device"] is None:
            _adopt_parent()
        if (device is None and not os.environ.get("ENERGY_RT_DEVICE")
                and _state["device"] is None and gpu_indices is None
                and _state["requested"]):
            # A forked child (a DataLoader's worker): its parent's device,
            # not this process's default GPU.
            device = _state["requested"]
        if (device is None and not os.environ.get("ENERGY_RT_DEVICE")
                and _state["device"] is None):
            if gpu_indices is None:
                gpu_indices = [_own_gpu_index()]
            device = "cuda:%d" % gpu_indices[0]
        self._requested = device
        self.device = _ensure(device)
        measured = _state["requested"] or ""
        # The index energies are keyed by: the one given, else the measured
        # CUDA device's (device="cuda:3", ENERGY_RT_DEVICE=cuda:2), else 0.
        if gpu_indices:
            self.gpu_indices = list(gpu_indices)
        elif measured.startswith("cuda:") and measured[5:].isdigit():
            self.gpu_indices = [int(measured[5:])]
        else:
            self.gpu_indices = [0]
        source = ("device=" if device is not None else "ENERGY_RT_DEVICE"
                  if os.environ.get("ENERGY_RT_DEVICE") else
                  "an earlier Monitor")
        if (gpu_indices is not None and measured.startswith("cuda:")
                and measured != "cuda:%d" % gpu_indices[0]):
            raise ValueError("gpu_indices=%r, but this process measures %s "
                             "(%s)" % (gpu_indices, measured, source))
        # One device per process, whatever index a Monitor keys it by: a
        # second Monitor keying the same simulated device as another GPU
        # would count its energy twice in a sum over GPUs. A Monitor given
        # no index (a region's, energy_rt.torch's) keys it as the first did.
        first = _state.get("monitor_index")
        if gpu_indices is None and first is not None:
            self.gpu_indices = [first]
        first = _state.setdefault("monitor_index", self.gpu_indices[0])
        if first != self.gpu_indices[0]:
            raise ValueError(
                "gpu_indices=%r, but this process measures %s as GPU %d "
                "(%s): energy_rt measures one GPU per process"
                % (gpu_indices, self.device, first, source))
        # The GPU whose CUDA work a window waits for: the measured one
        # (CUDA's numbering, as torch's), else torch's current device.
        index = (int(measured[5:]) if measured.startswith("cuda:")
                 and measured[5:].isdigit() else None)
        self._sync = ((lambda: _torch_sync(index)) if sync_execution
                      else None)
        # Simulated devices know a window's energy when it ends; a GPU's
        # comes with the counter's next update (Measurement reads it then).
        self._deferred = not self.device.startswith("sim:")
        self._static_power()
        # Windows are per thread, as the C API's regions are: one thread
        # cannot end another's, and two threads may each open "step". And
        # per Monitor, as Zeus's are: each has its own set of names in the
        # runtime (two Monitors may each open "step"; the DB pools them).
        self._local = threading.local()
        self._owner = next(_owners)

    def _static_power(self):
        s = _c.c_double()
        _check(_lib.er_static_power(_c.byref(s)))
        self._s = s.value

    def _thread(self):
        try:
            t = self._local.state
        except AttributeError:
            t = self._local.state = _ThreadWindows()
        if _state["device"] is None:
            # A forked child: this process's own device, measured anew.
            self.device = _ensure(self._requested)
            self._static_power()
            t.open.clear()
            t.ranges.clear()
        return t

    def begin_window(self, name, sync_execution=None):
        t = self._thread()
        if name in t.open:
            raise WindowError("window '%s' is already open" % name)
        key = _name(name)
        if self._sync and sync_execution is not False:
            self._sync()
        r = _profiler_range(name)
        try:
            _check(_lib.er_begin_in(self._owner, key) if self._owner
                   else _lib.er_begin(key))
        except BaseException:
            _profiler_range_end(r)
            raise
        t.open[name] = key
        if r is not None:
            t.ranges[name] = r

    def _opened(self, name):
        """This thread's record and the window's key; raises if it is not
        open in this thread."""
        t = self._thread()
        key = t.open.get(name)
        if key is None:
            _name(name)
            raise WindowError(
                "window '%s' is not open in this thread (windows are per "
                "thread)" % name)
        return t, key

    def abort_window(self, name):
        """Closes a window without recording it (its work failed): no
        Measurement, and no run in the region's signature."""
        t, key = self._opened(name)
        _check(_lib.er_abort_in(self._owner, key))
        del t.open[name]
        _profiler_range_end(t.ranges.pop(name, None))

    def end_window(self, name, sync_execution=None, cancel=False):
        """Closes the window and returns its Measurement; with ``cancel``
        (Zeus's argument) it is discarded as abort_window does, and an
        empty Measurement returned."""
        if cancel:
            # Zeus waits here too: the cancelled window's GPU work must not
            # spill into the next window.
            t, _ = self._opened(name)
            # The range ends first: a failed synchronization (a CUDA error
            # surfaces there) must not leave it open.
            _profiler_range_end(t.ranges.pop(name, None))
            if self._sync and sync_execution is not False:
                self._sync()
            self.abort_window(name)
            return Measurement(name=name, time=0.0, total_energy=0.0,
                               energy={self.gpu_indices[0]: 0.0}, s=self._s,
                               device=self.device)
        t, key = self._opened(name)
        # The range ends first: a failed synchronization (a CUDA error
        # surfaces there) must not leave it open.
        _profiler_range_end(t.ranges.pop(name, None))
        if self._sync and sync_execution is not False:
            self._sync()
        # Forgotten only once the runtime has closed it.
        if self._deferred:
            _check(_lib.er_end_ticket_in(self._owner, key, t.refs[3],
                                         t.refs[1], t.refs[2]))
            del t.open[name]
            return Measurement._later(
                t.ticket.value, self.gpu_indices[0], name=name,
                time=t.t.value, s=self._s, clock_mhz=t.clock.value,
                device=self.device)
        r = t.refs
        _check(_lib.er_end_measure_in(self._owner, key, r[0], r[1], r[2])
               if self._owner else _lib.er_end_measure(key, r[0], r[1], r[2]))
        del t.open[name]
        energy, time = t.e.value, t.t.value
        return Measurement._known(name, time, energy, self.gpu_indices[0],
                                  self._s, t.clock.value, self.device)


class region:
    """A window as a context manager or a decorator::

        with energy_rt.region("stage0.forward") as r:
            ...
        r.measurement   # the Measurement, once the block ends

        @energy_rt.region("step")
        def train_step(): ...
    """

    _monitor = None

    def __init__(self, name, monitor=None):
        _name(name)
        self.name = name
        self.monitor = monitor
        self.measurement = None

    def _mon(self):
        if self.monitor is None:
            if region._monitor is None:
                region._monitor = Monitor()
            self.monitor = region._monitor
        return self.monitor

    def __enter__(self):
        self._mon().begin_window(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        # Work that raised is no measurement: the window closes unrecorded
        # (a failed forward would otherwise join the region's signature).
        if exc_type is not None:
            self._mon().abort_window(self.name)
            return False
        self.measurement = self._mon().end_window(self.name)
        return False

    def __call__(self, fn):
        # A generator's body runs between its consumer's calls, so no one
        # window holds it: refused rather than measured as nothing.
        if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
            raise TypeError(
                "energy_rt.region(%r) cannot decorate the generator %s: its "
                "body runs between its consumer's calls; put the region "
                "around the loop that consumes it" % (self.name,
                                                     fn.__qualname__))
        # A call inside an open window of its own name (recursion, or two
        # of its coroutines at once on one thread) is measured by that
        # outermost window instead of failing the call.
        def inside():
            mon = self._mon()
            return mon, self.name in mon._thread().open

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def awaiting(*args, **kwargs):
                mon, nested = inside()
                if nested:
                    return await fn(*args, **kwargs)
                with region(self.name, mon):
                    return await fn(*args, **kwargs)
            return awaiting

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            mon, nested = inside()
            if nested:
                return fn(*args, **kwargs)
            with region(self.name, mon):
                return fn(*args, **kwargs)
        return wrapper


def _path(path, what):
    """A file path given as str, bytes or os.PathLike, as the bytes the C
    API takes."""
    try:
        encoded = os.fsencode(path)
    except TypeError:
        raise TypeError("%s needs a path (str, bytes or os.PathLike), not %r"
                        % (what, path)) from None
    if not encoded or b"\0" in encoded:
        raise ValueError("%s needs a non-empty path without NUL characters, "
                         "not %r" % (what, path))
    return encoded


def flush(path):
    """Writes every region's signature to a version-1 signature DB ("%r" in
    `path` becomes the rank), whole or not at all. Every run since the
    process began measuring counts, flushed before or not: two phases
    profiled apart in one process need region names of their own."""
    path = _path(path, "flush")
    if _state["device"] is None:
        raise EnergyRuntimeError("nothing to flush: this process has not "
                                 "measured yet (open a Monitor or a region "
                                 "first)")
    if _state.get("forked"):
        # A worker has its parent's rank: beside the parent's shard, not
        # over it.
        path += b".pid%d" % os.getpid()
    _check(_lib.er_flush(path))


def step():
    """Marks the end of an iteration: in profiling mode
    (ENERGY_RT_PROFILE_CLOCKS or ENERGY_RT_PROFILE_POWER_LIMITS,
    runtime/include/energy_rt.h) it moves the device to the next clock or
    power limit of the sweep."""
    _ensure()
    _check(_lib.er_step())


def write_metrics(path):
    """Every region's totals in the Prometheus text exposition format at
    `path` (the node_exporter textfile collector's), whole or not at all."""
    path = _path(path, "write_metrics")
    _ensure()
    _check(_lib.er_write_metrics(path))


def metrics_port():
    """The port of the HTTP /metrics endpoint (ENERGY_RT_METRICS_PORT at
    start-up; 0 picks a free one), or None when it is not serving."""
    _ensure()
    p = _lib.er_metrics_port()
    return None if p < 0 else p


def sim_run(flops, bytes_):
    """Simulated devices: charge a kernel of `flops` and `bytes_` (work that
    has no GPU to run on: tests, examples)."""
    _ensure()
    _check(_lib.er_sim_run(float(flops), float(bytes_)))


def load_plan(path):
    """Follow a plan's clocks region by region (`energy-prof plan-clocks`
    output; needs ENERGY_RT_ALLOW_CLOCK_CHANGES=1, restored at exit). The
    device is this process's (a Monitor's, else ENERGY_RT_DEVICE). A
    ``name[k]`` line (``plan-clocks --by-key``) is the clock of region
    name's k-th begin since the last step(), from 0."""
    path = _path(path, "load_plan")
    _ensure()
    _check(_lib.er_plan_load(path))


def sm_clock():
    """The device's SM clock now (MHz) and the clock changes made for the
    plan so far: ``(mhz, switches)``. A simulated device's clock is its
    model's; ENERGY_RT_SIM_STATE=FILE also mirrors it into FILE, to watch
    it from another process."""
    _ensure()
    mhz, switches = ctypes.c_int(), ctypes.c_uint()
    _check(_lib.er_sm_clock(ctypes.byref(mhz), ctypes.byref(switches)))
    return mhz.value, switches.value


if os.environ.get("ENERGY_RT_FLUSH_AT_EXIT"):
    _exit_through_handlers_on_signals()
