//===- Pipeline.cpp - Pipeline-parallel training schedules ----------------===//

#include "calculus/Pipeline.h"

#include <cmath>

#include <algorithm>

namespace energy {
namespace calculus {

bool parsePipelineKind(const std::string &name, PipelineKind &kind) {
  if (name == "gpipe")
    kind = PipelineKind::GPipe;
  else if (name == "1f1b")
    kind = PipelineKind::OneFOneB;
  else if (name == "interleaved-1f1b")
    kind = PipelineKind::Interleaved;
  else if (name == "zb-h1")
    kind = PipelineKind::ZBH1;
  else
    return false;
  return true;
}

uint64_t pipelineTaskCount(PipelineKind kind, uint64_t stages,
                           uint64_t microbatches, uint64_t chunks,
                           uint64_t dataParallel, bool sync) {
  uint64_t perMb = kind == PipelineKind::ZBH1 ? 3 : 2;
  uint64_t n = 1;
  for (uint64_t f : {stages, microbatches, chunks, dataParallel, perMb}) {
    if (f != 0 && n > UINT64_MAX / f)
      return UINT64_MAX;
    n *= f;
  }
  uint64_t more = (dataParallel > 1 ? stages * dataParallel : 0) + sync;
  return n > UINT64_MAX - more ? UINT64_MAX : n + more;
}

std::string checkPipelineSize(PipelineKind kind, uint64_t stages,
                              uint64_t microbatches, uint64_t chunks,
                              uint64_t dataParallel, bool sync) {
  uint64_t n =
      pipelineTaskCount(kind, stages, microbatches, chunks, dataParallel, sync);
  if (n <= kMaxPipelineTasks)
    return "";
  std::string count =
      n == UINT64_MAX ? std::string("more than 2^64") : std::to_string(n);
  return "expands into " + count +
         " tasks (stages x microbatches x chunks x "
         "data_parallel x passes, all-reduces, sync), above the limit of " +
         std::to_string(kMaxPipelineTasks) + " (docs/SCHED.md)";
}

bool pipelineOrder(PipelineKind kind, uint32_t S, uint32_t M, uint32_t v,
                   std::vector<std::vector<PipeInstr>> &order,
                   std::string &err) {
  if (S == 0 || M == 0 || v == 0) {
    err = "stages, microbatches and chunks must be positive";
    return false;
  }
  if (kind != PipelineKind::Interleaved && v != 1) {
    err = "chunks > 1 needs schedule \"interleaved-1f1b\"";
    return false;
  }
  order.assign(S, {});
  for (uint32_t s = 0; s < S; ++s) {
    std::vector<PipeInstr> &o = order[s];
    switch (kind) {
    case PipelineKind::GPipe:
      // All forwards, then all backwards, both in microbatch order.
      for (uint32_t m = 0; m < M; ++m)
        o.push_back({PipeInstr::F, s, m});
      for (uint32_t m = 0; m < M; ++m)
        o.push_back({PipeInstr::B, s, m});
      break;
    case PipelineKind::OneFOneB:
    case PipelineKind::ZBH1: {
      // Warm-up min(S - s - 1, M) forwards, then one forward / one backward,
      // then the remaining backwards (PipeDream-flush / Megatron 1F1B).
      uint32_t w = std::min(S - s - 1, M);
      for (uint32_t m = 0; m < w; ++m)
        o.push_back({PipeInstr::F, s, m});
      bool zb = kind == PipelineKind::ZBH1;
      // ZB-H1 (Qi et al., ICLR'24): stage s keeps s weight-gradient passes
      // deferred during the steady phase (W(i - s) follows B(i)) and drains
      // them in the cool-down bubbles. In-flight work per stage is
      // (S - s - 1) warm-up forwards + s deferred W's <= S - 1, 1F1B's peak,
      // so activation memory is unchanged while the bubble shrinks to
      // (S - 1)(F + B - W).
      uint32_t nextW = 0;
      for (uint32_t i = 0; i + w < M; ++i) {
        o.push_back({PipeInstr::F, s, w + i});
        o.push_back({PipeInstr::B, s, i});
        if (zb && i >= s)
          o.push_back({PipeInstr::W, s, nextW++});
      }
      for (uint32_t m = M - w; m < M; ++m) {
        o.push_back({PipeInstr::B, s, m});
        if (zb)
          o.push_back({PipeInstr::W, s, nextW++});
      }
      while (zb && nextW < M)
        o.push_back({PipeInstr::W, s, nextW++});
      break;
    }
    case PipelineKind::Interleaved: {
      if (M % S != 0) {
        err = "interleaved-1f1b needs microbatches to be a multiple of stages";
        return false;
      }
      // Megatron-LM: virtual microbatch k runs model chunk
      // (k mod S*v) div S (mirrored for backward) on microbatch
      // (k div S*v) * S + k mod S.
      uint32_t total = M * v;
      uint32_t w = std::min(total, (S - s - 1) * 2 + (v - 1) * S);
      auto instr = [&](PipeInstr::Type t, uint32_t k) {
        uint32_t group = k % (S * v);
        uint32_t chunk = group / S;
        if (t == PipeInstr::B)
          chunk = v - 1 - chunk;
        uint32_t mb = (k / (S * v)) * S + k % S;
        return PipeInstr{t, chunk * S + s, mb};
      };
      for (uint32_t k = 0; k < w; ++k)
        o.push_back(instr(PipeInstr::F, k));
      for (uint32_t i = 0; i + w < total; ++i) {
        o.push_back(instr(PipeInstr::F, w + i));
        o.push_back(instr(PipeInstr::B, i));
      }
      for (uint32_t k = total - w; k < total; ++k)
        o.push_back(instr(PipeInstr::B, k));
      break;
    }
    }
  }
  return true;
}

bool buildPipeline(const PipelineSpec &spec, Schedule &sched,
                   std::vector<PipelineTaskInfo> &info, std::string &err) {
  err = checkPipelineSize(spec.kind, spec.stages, spec.microbatches,
                          spec.chunks, spec.dataParallel, spec.sync > 0);
  if (!err.empty())
    return false;
  std::vector<std::vector<PipeInstr>> order;
  if (!pipelineOrder(spec.kind, spec.stages, spec.microbatches, spec.chunks,
                     order, err))
    return false;
  uint32_t S = spec.stages, M = spec.microbatches, V = S * spec.chunks;
  uint32_t D = spec.dataParallel ? spec.dataParallel : 1;
  bool zb = spec.kind == PipelineKind::ZBH1;
  if (spec.forward.size() != V || spec.backward.size() != V ||
      (zb && spec.weight.size() != V)) {
    err = "need one forward and backward (and, for zb-h1, weight) cost per "
          "virtual stage";
    return false;
  }
  if (!(spec.sync >= 0) || !std::isfinite(spec.sync)) {
    err = "the closing synchronization must be finite and non-negative";
    return false;
  }
  if (!(spec.syncVarT >= 0) || !std::isfinite(spec.syncVarT)) {
    err = "the closing synchronization's variance must be finite and "
          "non-negative";
    return false;
  }
  sched = Schedule();
  info.clear();
  for (uint32_t r = 0; r < D; ++r)
    for (uint32_t s = 0; s < S; ++s)
      sched.devices.push_back(
          {spec.staticPowerPerGpu * double(spec.tensorParallel)});
  size_t perReplica = 0;
  for (auto &o : order)
    perReplica += o.size();
  sched.tasks.reserve(D * (perReplica + (D > 1 ? S : 0)));
  info.reserve(sched.tasks.capacity());

  // Task id of (type, vstage, microbatch) within a replica.
  std::vector<uint32_t> idOf(size_t(3) * V * M, UINT32_MAX);
  auto slot = [&](PipeInstr::Type t, uint32_t vs, uint32_t m) -> uint32_t & {
    return idOf[(size_t(t) * V + vs) * M + m];
  };
  std::vector<uint32_t> lastBackward(S * D, UINT32_MAX);
  for (uint32_t r = 0; r < D; ++r) {
    std::fill(idOf.begin(), idOf.end(), UINT32_MAX);
    // Ids first, so dependencies on later-emitted ranks resolve.
    uint32_t next = sched.tasks.size();
    for (uint32_t s = 0; s < S; ++s)
      for (const PipeInstr &in : order[s])
        slot(in.type, in.vstage, in.microbatch) = next++;
    for (uint32_t s = 0; s < S; ++s) {
      for (const PipeInstr &in : order[s]) {
        ScheduleTask t;
        t.devices = {r * S + s};
        const StageCost &c = in.type == PipeInstr::F ? spec.forward[in.vstage]
                             : in.type == PipeInstr::B
                                 ? spec.backward[in.vstage]
                                 : spec.weight[in.vstage];
        t.duration = c.T;
        t.d = c.d;
        t.varT = c.varT;
        t.varD = c.varD;
        uint32_t vs = in.vstage, m = in.microbatch;
        // Virtual stages v and v +- 1 sit on different devices when S > 1:
        // their activation or gradient crosses a link.
        double hop = S > 1 ? spec.p2pLatency : 0;
        double hopVar = S > 1 ? spec.p2pLatencyVar : 0;
        switch (in.type) {
        case PipeInstr::F:
          if (vs > 0)
            t.deps.push_back(
                {slot(PipeInstr::F, vs - 1, m), false, hop, hopVar});
          break;
        case PipeInstr::B:
          if (vs + 1 < V)
            t.deps.push_back(
                {slot(PipeInstr::B, vs + 1, m), false, hop, hopVar});
          else
            t.deps.push_back({slot(PipeInstr::F, vs, m)});
          break;
        case PipeInstr::W:
          t.deps.push_back({slot(PipeInstr::B, vs, m)});
          break;
        }
        for (const Dependency &dep : t.deps)
          if (dep.pred == UINT32_MAX) {
            err = "internal error: pipeline dependency on a missing task";
            return false;
          }
        if (in.type == (zb ? PipeInstr::W : PipeInstr::B))
          lastBackward[r * S + s] = sched.tasks.size();
        sched.tasks.push_back(std::move(t));
        info.push_back({in.type == PipeInstr::F   ? PipelineTaskInfo::F
                        : in.type == PipeInstr::B ? PipelineTaskInfo::B
                                                  : PipelineTaskInfo::W,
                        vs, m, r});
      }
    }
  }
  if (D > 1) {
    for (uint32_t s = 0; s < S; ++s) {
      ScheduleTask ar;
      ar.stream = 1;
      ar.duration = spec.allreduce.T;
      ar.d = spec.allreduce.d;
      ar.varT = spec.allreduce.varT;
      ar.varD = spec.allreduce.varD;
      for (uint32_t r = 0; r < D; ++r) {
        ar.devices.push_back(r * S + s);
        uint32_t last = lastBackward[r * S + s];
        ar.deps.push_back(
            {last, true, spec.allreduceLag * sched.tasks[last].duration});
      }
      sched.tasks.push_back(std::move(ar));
      info.push_back({PipelineTaskInfo::AllReduce, s, 0, 0});
    }
  }
  if (spec.sync > 0) {
    // After every task that nothing follows, on every device at once.
    std::vector<char> followed(sched.tasks.size(), 0);
    for (const ScheduleTask &t : sched.tasks)
      for (const Dependency &d : t.deps)
        followed[d.pred] = 1;
    ScheduleTask bar;
    bar.duration = spec.sync;
    bar.varT = spec.syncVarT;
    for (uint32_t dev = 0; dev < D * S; ++dev)
      bar.devices.push_back(dev);
    for (uint32_t t = 0; t < sched.tasks.size(); ++t)
      if (!followed[t])
        bar.deps.push_back({t, false, 0});
    sched.tasks.push_back(std::move(bar));
    info.push_back({PipelineTaskInfo::Sync, 0, 0, 0});
  }
  return true;
}

} // namespace calculus
} // namespace energy
