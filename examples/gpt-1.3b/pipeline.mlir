// One training iteration of a GPT-style 1.3 B decoder on 4 pipeline stages
// (6 layers each; make_kernels.py gives the model and every kernel's FLOP
// and byte counts), 1F1B with 8 micro-batches of 4 x 2048 tokens, on the
// simulated A100 (static power 60 W: runtime/SimDevice.h). Each stage's
// forward and backward pass names its signature-DB key; `energy-prof
// characterize` writes those entries at every SM clock, and
// `--energy-fill-signatures` turns them into the stages' operating sets
// (README.md, "Schedules in, energy out"; this folder's README.md).
sched.schedule @gpt13b {
  sched.pipeline @train {stages = 4, microbatches = 8, schedule = "1f1b",
      device_kind = "A100-SXM4", static_power = 60.0,
      forward_db = ["stage0.forward", "stage1.forward", "stage2.forward", "stage3.forward"],
      backward_db = ["stage0.backward", "stage1.backward", "stage2.backward", "stage3.backward"]}
}
