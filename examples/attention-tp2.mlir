// The paper's section 2.4 layer: a Llama 3.2 3B attention layer trained on two
// A100s with tensor parallelism and computation-communication overlap. The two
// GPUs run in lockstep, so they are one device with their static powers
// summed (120 W combined). A sequential prefix (RMSNorm -> Linear 1) is
// followed by the compute path (RoPE -> Attention -> Linear 2) overlapped with
// the AllReduce on the same devices. The dynamic energies sum to 2.80 J
// (900 mJ + 1.398 J + 502 mJ), the paper's measured total is 3.32 J.
//
//   energy-opt --energy-evaluate examples/attention-tp2.mlir

energy.device @tp2 kind "2xA100-SXM4" static 120 W

energy.seq @attention {
  energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ, sigma_T = 10 us, sigma_d = 5 mJ>
  energy.par @overlap {
    energy.element @compute on @tp2 sig <T = 2.77 ms, d = 1.398 J, sigma_T = 15 us, sigma_d = 8 mJ>
    energy.element @allreduce on @tp2 sig <T = 2.77 ms, d = 502 mJ, sigma_T = 20 us, sigma_d = 4 mJ>
  }
}
