/* A C program built against an installed libenergy_rt with pkg-config's
 * flags alone (test/Python/energy-rt.test): one region on the simulated
 * A100, its run counted. */
#include <energy_rt.h>
#include <stdio.h>

int main(void) {
  double joules = 0, seconds = 0;
  unsigned runs = 0;
  if (er_init("sim:a100") || er_begin("x") || er_sim_run(1e12, 0) ||
      er_end("x") || er_result("x", &joules, &seconds, &runs)) {
    fprintf(stderr, "%s\n", er_last_error());
    return 1;
  }
  printf("runs %u, %s\n", runs,
         seconds > 0 && joules > 0 ? "measured" : "empty");
  er_shutdown();
  return 0;
}
