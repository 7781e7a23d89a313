"""PyTorch integration: pipeline stages as measured regions, without
editing the model.

    import energy_rt.torch as ert
    stage = ert.Stage(my_stage_module, index=rank)
    out = stage(x, microbatch=m)          # region "stage<i>.forward"
    stage.backward(out, grad, microbatch=m)  # region "stage<i>.backward"

`optimizer_step(optimizer)` runs `optimizer.step()` in the region
`optimizer`, charging a simulated device the step's reads and writes
(its docstring gives the counting).

`Stage` wraps a module (the model is not changed). Its forward runs the
module inside the region `stage<i>.forward`, its `backward` runs
`torch.autograd.backward` inside `stage<i>.backward`: the DB's keys, so a
plan written by `energy-prof plan-clocks --by-key` and loaded with
`energy_rt.load_plan` sets each microbatch's clock by the pass's begin in
the iteration (`stage0.forward[3]`; call `energy_rt.step()` per
iteration). With `names="tasks"` the regions are named like the tasks of
the compiler's pipeline schedules instead (`F<i>_<m>` / `B<i>_<m>`,
passes/PipelineGen.cpp), for a plan written by task (`plan-clocks`
without `--by-key`).

On a simulated device (`sim:*`) there is no GPU doing the work, so each
leaf module reports its work, counted from its inputs' shapes, and the
simulated device charges it as one kernel (`energy_rt.sim_run`), launched
as the module starts (as a GPU kernel would be). The counting (FLOPs; bytes moved, at the tensors' element
sizes):

- Linear: 2 N in out FLOPs (+ N out with a bias), N = input rows; bytes:
  input + weight + bias + output.
- MultiheadAttention (batch-first or not, self- or cross-attention): the
  input projections 2 L E (3E), scores 2 L S E, softmax 5 H L S, the
  weighted sum 2 L S E, the output projection 2 L E E, per batch element
  (L query, S key positions, E embedding, H heads); bytes: inputs,
  weights, the H L S score matrix written and read twice, the output.
- LayerNorm: 8 FLOPs per element (mean, variance, normalize, scale,
  shift); bytes: input + output + weight + bias.
- GELU, Tanh, SiLU: 8 FLOPs per element; ReLU, Dropout, Identity: 1;
  bytes: input + output.
- Embedding: no FLOPs; bytes: the gathered rows read and written.
- Backward: twice the forward's FLOPs and bytes per module (the gradients
  with respect to the inputs and to the weights, each costing about a
  forward: the "6N per token" rule of Kaplan et al., "Scaling Laws for
  Neural Language Models", 2020, Sec. 2.1).

Leaf modules of other types are not counted: `Stage.uncounted` lists them,
and a warning names those that have parameters. `work_scale` multiplies the
counted work (default 1; a pair scales FLOPs and bytes apart): a stand-in,
so that a model small enough to run on CPUs exercises the clocks of a
GPU-sized one (a small fp32 model's own arithmetic intensity, 1-40 FLOP/B,
is memory-bound on any recent GPU); say so where you report results. With
a real-time simulated device (ENERGY_RT_SIM_REALTIME) the charged kernels
queue like CUDA launches, so the host's own work overlaps them as it would
on a GPU; the backward's kernels are queued before autograd runs. On real
GPUs nothing is charged: the kernels run and the counter sees them.
"""
import collections
import warnings
import weakref

import torch

import energy_rt

_ELEMENTWISE_8 = (torch.nn.GELU, torch.nn.Tanh, torch.nn.SiLU)
_ELEMENTWISE_1 = (torch.nn.ReLU, torch.nn.Dropout, torch.nn.Identity)


def _bytes(*tensors):
    return float(sum(t.numel() * t.element_size() for t in tensors
                     if isinstance(t, torch.Tensor)))


def _first_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (tuple, list)):
        for v in x:
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


def _numel(shape):
    n = 1
    for v in shape:
        n *= int(v)
    return n


def count(module, inputs):
    """(FLOPs, bytes) of one forward of a leaf module, from its inputs'
    shapes (so that a simulated kernel can be launched before the module
    runs, as the GPU's would be), or None when its type is not counted (see
    the module docstring)."""
    x = _first_tensor(inputs)
    if x is None:
        return None
    size = x.element_size()
    if isinstance(module, torch.nn.Linear):
        rows = x.numel() // module.in_features
        flops = 2.0 * rows * module.in_features * module.out_features
        if module.bias is not None:
            flops += rows * module.out_features
        return flops, _bytes(x, module.weight, module.bias) + \
            rows * module.out_features * size
    if isinstance(module, torch.nn.MultiheadAttention):
        q = inputs[0]
        k = inputs[1] if len(inputs) > 1 else q
        E, H = module.embed_dim, module.num_heads
        if q.dim() == 2:  # unbatched: (L, E)
            batch, L, S = 1, q.shape[0], k.shape[0]
        elif module.batch_first:
            batch, L, S = q.shape[0], q.shape[1], k.shape[1]
        else:
            L, batch, S = q.shape[0], q.shape[1], k.shape[0]
        flops = batch * (2.0 * L * E * 3 * E + 2.0 * L * S * E +
                         5.0 * H * L * S + 2.0 * L * S * E +
                         2.0 * L * E * E)
        scores = 3.0 * batch * H * L * S * size
        # Its input projections and its out_proj (a submodule it calls
        # through the functional form, so no hook of its own fires).
        params = sum(p.numel() * p.element_size() for p in module.parameters())
        return flops, _bytes(*inputs[:3]) + q.numel() * size + scores + params
    if isinstance(module, torch.nn.LayerNorm):
        return 8.0 * x.numel(), 2.0 * _bytes(x) + _bytes(module.weight,
                                                         module.bias)
    if isinstance(module, _ELEMENTWISE_8):
        return 8.0 * x.numel(), 2.0 * _bytes(x)
    if isinstance(module, _ELEMENTWISE_1):
        return 1.0 * x.numel(), 2.0 * _bytes(x)
    if isinstance(module, torch.nn.Embedding):
        return 0.0, 2.0 * x.numel() * module.embedding_dim * \
            module.weight.element_size()
    return None


_COUNTED = (torch.nn.Linear, torch.nn.MultiheadAttention, torch.nn.LayerNorm,
            torch.nn.Embedding) + _ELEMENTWISE_8 + _ELEMENTWISE_1


def _walk(module):
    """(leaves, parents): the modules whose work is counted as a whole --
    counted types (not descending into them: MultiheadAttention's out_proj
    is its own) and other modules without children -- and the modules
    above them. A Stage inside the module is left to itself: it charges its
    own work, in its own regions."""
    leaves, parents = [], []
    stack = [module]
    while stack:
        m = stack.pop()
        if isinstance(m, Stage) and m is not module:
            continue
        children = list(m.children())
        if isinstance(m, _COUNTED) or not children:
            leaves.append(m)
        else:
            parents.append(m)
            stack.extend(reversed(children))
    return leaves, parents


def _own_weights(module):
    return any(True for _ in module.parameters(recurse=False))


class Stage(torch.nn.Module):
    """A pipeline stage whose forward and backward passes are regions.

    module: the stage's layers (unchanged). index: the stage's number.
    names: "db" (regions "stage<i>.forward" / "stage<i>.backward", the keys
    a profile's signature DB has) or "tasks" ("F<i>_<m>" / "B<i>_<m>", the
    names a plan's clocks are given by). work_scale: multiplies the work
    charged to a simulated device (a number, or a (flops, bytes) pair).
    monitor: an energy_rt.Monitor (default:
    the one energy_rt.region uses).
    """

    def __init__(self, module, index, names="db", work_scale=1.0,
                 monitor=None):
        super().__init__()
        if names not in ("db", "tasks"):
            raise ValueError("names must be 'db' or 'tasks', got %r" % names)
        scale = (tuple(work_scale) if isinstance(work_scale, (tuple, list))
                 else (work_scale, work_scale))
        if len(scale) != 2 or not all(isinstance(v, (int, float)) and v > 0
                                      and v < float("inf") for v in scale):
            raise ValueError("work_scale must be a positive number or a "
                             "(flops, bytes) pair of them, got %r" %
                             (work_scale,))
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError("index must be a non-negative int, got %r" %
                             (index,))
        self.module = module
        self.index = index
        self.names = names
        self.work_scale = (float(scale[0]), float(scale[1]))
        self._monitor = monitor
        self._charge = None    # set on first use: is the device simulated?
        self._kernels = None   # the forward's (flops, bytes) while it runs
        # The forwards' kernels awaiting their backward, with a weak
        # reference to each forward's output: matched by that output where
        # backward is given it (a pipeline stage's own output), else by
        # microbatch where both name it, else first in, first out (1F1B).
        # A forward whose output is gone (an evaluation loop without
        # no_grad) can have no backward: its entry is dropped.
        self._pending = collections.deque()
        self._warned_kwargs = set()
        leaves, parents = _walk(module)
        others = [m for m in leaves if not isinstance(m, _COUNTED)]
        # Modules with children that use weights of their own (x @ self.w)
        # do work no leaf reports.
        parents = [m for m in parents if _own_weights(m)]
        self.uncounted = sorted({type(m).__name__ for m in others + parents})
        weighty = sorted({type(m).__name__ for m in others + parents
                          if _own_weights(m)})
        if weighty:
            warnings.warn("energy_rt.torch: modules of type %s are not "
                          "counted (their work is not charged to a "
                          "simulated device)" % ", ".join(weighty))
        self._hooks = [m.register_forward_pre_hook(self._hook)
                       for m in leaves if isinstance(m, _COUNTED)]

    def _mon(self):
        if self._monitor is None:
            if energy_rt.region._monitor is None:
                energy_rt.region._monitor = energy_rt.Monitor()
            self._monitor = energy_rt.region._monitor
        if self._charge is None:
            self._charge = self._monitor.device.startswith("sim:")
        return self._monitor

    def _hook(self, module, inputs):
        if self._kernels is None or not self._charge:
            return
        work = count(module, inputs)
        if work is None:
            # Tensors passed by keyword only (mha(query=q, ...)): a forward
            # pre-hook sees positional inputs only (PyTorch 1.13).
            name = type(module).__name__
            if name not in self._warned_kwargs:
                self._warned_kwargs.add(name)
                warnings.warn("energy_rt.torch: a %s was called without "
                              "positional tensor inputs: its work is not "
                              "charged (pass the tensors positionally)" % name)
            return
        flops, bytes_ = work[0] * self.work_scale[0], work[1] * self.work_scale[1]
        energy_rt.sim_run(flops, bytes_)
        self._kernels.append((flops, bytes_))

    def region_name(self, kind, microbatch):
        if microbatch is not None and (isinstance(microbatch, bool) or
                                       not isinstance(microbatch, int) or
                                       microbatch < 0):
            raise ValueError("microbatch must be a non-negative int, got %r"
                             % (microbatch,))
        if self.names == "db":
            return "stage%d.%s" % (self.index, kind)
        if microbatch is None:
            raise ValueError("names='tasks' needs the microbatch index")
        return "%s%d_%d" % ("F" if kind == "forward" else "B", self.index,
                            microbatch)

    def forward(self, *args, microbatch=None, **kwargs):
        mon = self._mon()
        name = self.region_name("forward", microbatch)
        mon.begin_window(name)
        self._kernels = []
        try:
            out = self.module(*args, **kwargs)
        except BaseException:
            # A pass that raised is no measurement (Monitor.abort_window).
            self._kernels = None
            mon.abort_window(name)
            raise
        kernels, self._kernels = self._kernels, None
        self.last_forward = mon.end_window(name)
        if torch.is_grad_enabled():
            self._drop_dead()
            ref = None
            if isinstance(out, torch.Tensor):
                ref = weakref.ref(out)
            self._pending.append((microbatch, kernels, ref))
        return out

    # Forwards whose output tensor is gone are kept, the newest few: the
    # last stage's loss holds the graph but not the output
    # (loss = f(stage(x)); stage.backward(loss)); an evaluation loop
    # without no_grad leaves only these few behind.
    _DEAD_KEPT = 16

    @staticmethod
    def _dead(entry):
        return entry[2] is not None and entry[2]() is None

    def _drop_dead(self):
        dead = sum(1 for p in self._pending if self._dead(p))
        excess = dead - self._DEAD_KEPT
        if excess <= 0:
            return
        kept = collections.deque()
        for p in self._pending:
            if self._dead(p) and excess > 0:
                excess -= 1
                continue
            kept.append(p)
        self._pending = kept

    def backward(self, outputs, grad_outputs=None, microbatch=None):
        """torch.autograd.backward(outputs, grad_outputs) in the backward
        region; on a simulated device, the forward's kernels run again in
        reverse order at twice their work (module docstring). The forward
        is the one of the same microbatch where both name it, else the
        oldest one still unmatched."""
        mon = self._mon()
        name = self.region_name("backward", microbatch)  # checked first
        self._drop_dead()
        match = None
        if isinstance(outputs, torch.Tensor):
            match = next((i for i, (_, _, ref) in enumerate(self._pending)
                          if ref is not None and ref() is outputs), None)
        if match is None and microbatch is not None:
            match = next((i for i, (m, _, _) in enumerate(self._pending)
                          if m == microbatch), None)
        if match is None and (microbatch is None or all(
                p[0] is None for p in self._pending)):
            # The oldest forward whose output is alive, else the newest
            # whose output is gone (a loss computed from it just now).
            live = [i for i, p in enumerate(self._pending)
                    if not self._dead(p)]
            if live:
                match = live[0]
            elif self._pending:
                match = len(self._pending) - 1
        if match is None:
            raise energy_rt.EnergyRuntimeError(
                "Stage %d: backward%s without a forward to match" % (
                    self.index, "" if microbatch is None else
                    " of microbatch %d" % microbatch))
        _, kernels, _ = self._pending[match]
        del self._pending[match]
        mon.begin_window(name)
        try:
            if self._charge:
                for flops, bytes_ in reversed(kernels):
                    energy_rt.sim_run(2 * flops, 2 * bytes_)
            torch.autograd.backward(outputs, grad_outputs)
        except BaseException:
            mon.abort_window(name)
            raise
        self.last_backward = mon.end_window(name)


def optimizer_step(optimizer, name="optimizer", work_scale=1.0, monitor=None):
    """`optimizer.step()` inside the region `name`, returning its
    Measurement. On a simulated device the step's work is charged as one
    kernel (the optimizer's own arithmetic is not seen by any module hook):
    per parameter element with a gradient, the parameter and its gradient
    read and the parameter written, and every state tensor of the same
    size (SGD's momentum, Adam's two moments) read and written, at the
    tensors' element sizes; 2 FLOPs per element plus 4 per state tensor (a
    multiply-add for the update, a few for each moment; Adam's square root
    and division are counted as those 4). A step without gradients charges
    nothing. `work_scale` as Stage's. It calls `optimizer.step()` itself:
    with AMP's GradScaler, wrap `scaler.step(optimizer)` in a region of
    your own and charge its work with `energy_rt.sim_run`."""
    scale = (tuple(work_scale) if isinstance(work_scale, (tuple, list))
             else (work_scale, work_scale))
    if len(scale) != 2 or not all(isinstance(v, (int, float)) and v > 0
                                  and v < float("inf") for v in scale):
        raise ValueError("work_scale must be a positive number or a (flops, "
                         "bytes) pair of them, got %r" % (work_scale,))
    if monitor is None:
        if energy_rt.region._monitor is None:
            energy_rt.region._monitor = energy_rt.Monitor()
        monitor = energy_rt.region._monitor
    monitor.begin_window(name)
    try:
        optimizer.step()
        if monitor.device.startswith("sim:"):
            flops = bytes_ = 0
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    n = p.numel()
                    # State of the parameter's shape (momentum, moments;
                    # not Adam's step count, a scalar).
                    states = [t for t in optimizer.state.get(p, {}).values()
                              if isinstance(t, torch.Tensor)
                              and t.shape == p.shape]
                    flops += n * (2 + 4 * len(states))
                    bytes_ += (2 * p.element_size() + p.grad.element_size()
                               ) * n
                    bytes_ += sum(2 * t.element_size() * n for t in states)
            if flops:
                energy_rt.sim_run(flops * scale[0], bytes_ * scale[1])
    except BaseException:
        monitor.abort_window(name)
        raise
    return monitor.end_window(name)
