// An energy tree for --export-perfetto (test/Translate/perfetto-tree.test):
// two devices, a seq with a par whose later starter waits on an idle, an
// element that overrides its device's static power, operating points.
energy.device @g0 kind "A100" static 60 W
energy.device @g1 kind "A100" static 50 W
energy.multi @step {
  energy.seq @lane0 {
    energy.element @a on @g0 sig <T = 2 ms, d = 1 J> at <sm_mhz = 1410>
    energy.par @both {
      energy.element @b on @g0 sig <T = 3 ms, d = 2 J>
      energy.seq {
        energy.idle on @g0 for 1 ms
        energy.element @c on @g0 sig <T = 1 ms, d = 0.5 J>
      }
    }
  }
  energy.seq @lane1 {
    energy.element @d on @g1 sig <T = 4 ms, d = 3 J, s = 55 W>
    energy.element @e on @g1 sig <T = 1 ms, d = 0.25 J> at <sm_mhz = 1005>
  }
}
