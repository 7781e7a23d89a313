# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ENERGY"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.substitutions.append(("%python", "python3"))
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.energy_obj_root, "test")
config.excludes = ["Unit", "Inputs", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "kineto_counts.py", "fuzz_inputs.py",
                   "make_runs.py", "make_flop_byte_steps.py", "FakeNvml", "run_doc_commands.py",
                   "test_energy_rt.py", "test_energy_rt_torch.py",
                   "frontier_within.py",
                   "plan_reevaluates.py", "composite_check.py",
                   "demo_plan_check.py", "make_big_db.py",
                   "perfetto_check.py", "profile_job.py", "profile_check.py",
                   "metrics_check.py", "metrics_job.py", "metrics_http.py", "metrics_ports.py", "browser_check.py",
                   "report_check.py", "signals_table.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(
    ("%energy_python_install_dir", config.energy_python_install_dir))

# An ENERGY_SANITIZE build (make sanitize-suite): our programs carry the
# shared ASan runtime; hosts we do not build (Python loading
# libenergy_rt.so through ctypes, stock mlir-opt loading the plugin) get it
# by LD_PRELOAD. Leak detection is on for our programs and off inside
# Python (%python, %torch_python): LeakSanitizer cannot tell the
# interpreter's own allocations from ours there (the runtime's C API is
# leak-checked directly by `make sanitize`); the system programs' leaks
# are suppressed (test/lsan.supp). Chromium runs without the runtime
# (browser_check.py).
asan_runtime = getattr(config, "energy_asan_runtime", "")
asan_python = ""
if asan_runtime:
    config.available_features.add("asan")
    config.environment["LD_PRELOAD"] = asan_runtime
    asan_options = ("abort_on_error=0:allow_user_poisoning=0:"
                    "detect_container_overflow=0:verify_asan_link_order=0")
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:" + asan_options
    asan_python = "env ASAN_OPTIONS=detect_leaks=0:" + asan_options + " "
    config.substitutions = [
        (k, asan_python + v if k == "%python" else v)
        for (k, v) in config.substitutions]
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        config.energy_src_root, "test", "lsan.supp")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"

# Restore records (runtime/RestoreRecord.h) of the tests' simulated devices
# stay in the build tree, apart from the user's own.
config.environment["ENERGY_RT_STATE_DIR"] = os.path.join(
    config.energy_obj_root, "test", "restore-records")
os.makedirs(config.environment["ENERGY_RT_STATE_DIR"], exist_ok=True)
# So are the devices' claims (locks); the tests on the NVML test double,
# whose "cuda:0" is each process's own, give each test its own folder.
config.environment["ENERGY_RT_LOCK_DIR"] = os.path.join(
    config.energy_obj_root, "test", "device-locks")

# Datasets from public artifacts are read in place, never copied into the
# repository: ENERGY_SHARED_DATA, else ../shared/data beside the checkout
# (../shared/data/README.md lists every dataset with source and licence).
# Where it is absent the tests that need it (`REQUIRES: shared-data`) are
# UNSUPPORTED; CI sets ENERGY_REQUIRE_SHARED_DATA=1 so that they cannot be
# skipped there.
shared_data = os.path.abspath(
    os.environ.get("ENERGY_SHARED_DATA")
    or os.path.join(config.energy_src_root, "..", "shared", "data"))
if os.path.isfile(os.path.join(shared_data, "README.md")):
    config.available_features.add("shared-data")
elif os.environ.get("ENERGY_REQUIRE_SHARED_DATA") == "1":
    lit_config.fatal("ENERGY_REQUIRE_SHARED_DATA=1 but no shared data at %s"
                     % shared_data)
else:
    lit_config.note("no shared data at %s (set ENERGY_SHARED_DATA): the "
                    "tests that read real datasets are UNSUPPORTED (they "
                    "need feature 'shared-data')" % shared_data)
config.substitutions.append(("%shared_data", shared_data))

# A real browser for the HTML report (Debian's chromium, in the Makefile's
# packages): the browser test needs feature 'chromium'; CI sets
# ENERGY_REQUIRE_CHROMIUM=1 so that it cannot be skipped there.
import shutil
chromium = shutil.which("chromium")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))
elif os.environ.get("ENERGY_REQUIRE_CHROMIUM") == "1":
    lit_config.fatal("ENERGY_REQUIRE_CHROMIUM=1 but no chromium on PATH")
else:
    lit_config.note("no chromium on PATH: the browser test is UNSUPPORTED "
                    "(it needs feature 'chromium')")
# Real PyTorch (Debian's python3-torch, in the Makefile's packages) lives in
# the system /usr/bin/python3: the torch tests need feature 'torch' and run
# %torch_python; CI sets ENERGY_REQUIRE_TORCH=1 so that they cannot be
# skipped there.
torch_python = "/usr/bin/python3"
import subprocess
has_torch = os.path.exists(torch_python) and subprocess.run(
    [torch_python, "-c", "import torch"], capture_output=True,
    timeout=120).returncode == 0
if has_torch:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", asan_python + torch_python))
elif os.environ.get("ENERGY_REQUIRE_TORCH") == "1":
    lit_config.fatal("ENERGY_REQUIRE_TORCH=1 but %s cannot import torch "
                     "(apt-get install python3-torch)" % torch_python)
else:
    lit_config.note("%s cannot import torch: the PyTorch tests are "
                    "UNSUPPORTED (they need feature 'torch')" % torch_python)
# GLPK's glpsol (Debian's glpk-utils, in the Makefile's packages) is the
# independent LP solver the convex frontier is checked against: those tests
# need feature 'glpk'; CI sets ENERGY_REQUIRE_GLPK=1 so that they cannot be
# skipped there.
glpsol = shutil.which("glpsol")
if glpsol:
    config.available_features.add("glpk")
    config.substitutions.append(("%glpsol", glpsol))
elif os.environ.get("ENERGY_REQUIRE_GLPK") == "1":
    lit_config.fatal("ENERGY_REQUIRE_GLPK=1 but no glpsol on PATH "
                     "(apt-get install glpk-utils)")
else:
    lit_config.note("no glpsol on PATH: the LP oracle tests are UNSUPPORTED "
                    "(they need feature 'glpk')")
config.substitutions.append(
    ("%energy_oracle_tests",
     os.path.join(config.energy_obj_root, "test", "Oracles",
                  "EnergyOracleTests")))
config.environment["ENERGY_SHARED_DATA"] = shared_data
config.substitutions.append(
    ("%energy_realdata_tests",
     os.path.join(config.energy_obj_root, "test", "RealData",
                  "EnergyRealDataTests")))
config.substitutions.append(
    ("%energy_plugin", os.path.join(config.energy_lib_dir, "EnergyPlugin.so")))
config.substitutions.append(("%energy_src", config.energy_src_root))
config.substitutions.append(("%energy_tools", config.energy_tools_dir))
config.substitutions.append(("%energy_obj_root", config.energy_obj_root))
for variant in ("current", "old"):
    config.substitutions.append(
        ("%fake_nvml_" + variant,
         os.path.join(config.energy_obj_root, "test", "fake-nvml-" + variant)))
# The GPU check's programs exist where nvcc was found (built, not run, here).
for tool in ("gpu-check", "capi-check"):
    path = os.path.join(config.energy_tools_dir, tool)
    if os.path.exists(path):
        config.available_features.add(tool)
        config.substitutions.append(("%" + tool.replace("-", "_"), path))
config.substitutions.append(
    ("%frontier_bench",
     os.path.join(config.energy_obj_root, "bench", "frontier-bench")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    ToolSubst("energy-opt", unresolved="fatal"),
    ToolSubst("energy-translate", unresolved="fatal"),
    ToolSubst("energy-prof", unresolved="fatal"),
    # Stock mlir-opt from the LLVM installation, to load the plugin into.
    ToolSubst("%mlir_opt", command=os.path.join(config.llvm_tools_dir, "mlir-opt"),
              unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.energy_tools_dir])
