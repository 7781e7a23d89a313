// One iteration of examples/own-job/train.py: its regions in the order
// they run on one device, each task named as its region (so that the
// plan's clock file matches them) and filled from the profile's entry of
// the same key (`db`). The device's static power is the simulated A100's
// (a DB entry's s_W differing by more than 10 % is warned about).
sched.schedule @iteration {
  sched.device @gpu kind "A100-SXM4" static 60 W
  sched.task @"stage0.forward" on @gpu db "stage0.forward"
  sched.task @"stage0.backward" on @gpu after [@"stage0.forward"] db "stage0.backward"
  sched.task @optimizer on @gpu after [@"stage0.backward"] db "optimizer"
}
