# -*- Python -*-
# GoogleTest suites, run by the same lit invocation as the FileCheck tests.
import os

import lit.formats

config.name = "ENERGY-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.energy_obj_root, "test", "Unit")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
