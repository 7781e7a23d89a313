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
                   "make_runs.py", "FakeNvml"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(
    ("%energy_plugin", os.path.join(config.energy_lib_dir, "EnergyPlugin.so")))
config.substitutions.append(("%energy_src", config.energy_src_root))
config.substitutions.append(("%energy_tools", config.energy_tools_dir))
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
