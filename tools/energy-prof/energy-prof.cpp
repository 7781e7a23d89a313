//===- energy-prof.cpp - characterize kernels into a signature DB ---------===//
//
//   energy-prof characterize --device sim:a100 --kernels kernels.json
//       [--runs N] [--clocks 1410,1200 --allow-clock-changes] [--seed S]
//       [--thermal] -o db.json
//   energy-prof probe --device cuda:0|sim:h100
//
// kernels.json: [{"key": "gemm", "flops": 1.4e11, "bytes": 2e8}, ...].
// Clock changes happen only with --allow-clock-changes and are undone on
// every unwinding exit path (ClockGuard).
//
//===----------------------------------------------------------------------===//

#include "runtime/Characterize.h"
#include "runtime/Nvml.h"
#include "runtime/SimDevice.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace llvm;
using namespace energy::rt;

static cl::OptionCategory category("energy-prof options");
static cl::opt<std::string> command(cl::Positional, cl::Required,
                                    cl::desc("<characterize|probe>"),
                                    cl::cat(category));
static cl::opt<std::string> deviceName(
    "device", cl::desc("sim:a100|sim:h100|sim:h200 or cuda:<index>"),
    cl::Required, cl::cat(category));
static cl::opt<std::string> kernelsFile("kernels",
                                        cl::desc("JSON list of kernels"),
                                        cl::cat(category));
static cl::opt<unsigned> runs("runs", cl::desc("independent runs"),
                              cl::init(10), cl::cat(category));
static cl::list<int> clocks("clocks", cl::desc("SM clocks to sweep (MHz)"),
                            cl::CommaSeparated, cl::cat(category));
static cl::opt<bool> allowClockChanges(
    "allow-clock-changes",
    cl::desc("allow changing SM clocks (restored on exit)"), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("simulated device seed"),
                              cl::init(1), cl::cat(category));
static cl::opt<bool> thermal("thermal",
                             cl::desc("simulated device: thermal coupling on"),
                             cl::cat(category));
static cl::opt<std::string> output("o", cl::desc("signature DB to write"),
                                   cl::init("-"), cl::cat(category));

static int fail(const Twine &msg) {
  WithColor::error(errs(), "energy-prof") << msg << "\n";
  return 1;
}

static std::unique_ptr<Device> openDevice(std::string &err) {
  StringRef name = deviceName;
  if (name.consume_front("sim:")) {
    SimParams p;
    if (!simParamsFor(name.str(), p)) {
      err = "unknown simulated device '" + name.str() +
            "'; expected a100, h100 or h200";
      return nullptr;
    }
    auto dev = std::make_unique<SimDevice>(p, seed);
    dev->thermalCoupling = thermal;
    return dev;
  }
  unsigned index;
  if (name.consume_front("cuda:") && !name.getAsInteger(10, index))
    return openNvmlDevice(index, err);
  err = "unknown device '" + deviceName + "'; expected sim:<a100|h100|h200> "
        "or cuda:<index>";
  return nullptr;
}

static bool readKernels(std::vector<KernelSpec> &out, std::string &err) {
  auto buf = MemoryBuffer::getFileOrSTDIN(kernelsFile);
  if (!buf) {
    err = kernelsFile + ": cannot read: " + buf.getError().message();
    return false;
  }
  Expected<json::Value> doc = json::parse((*buf)->getBuffer());
  if (!doc) {
    err = kernelsFile + ": malformed JSON: " + toString(doc.takeError());
    return false;
  }
  auto *arr = doc->getAsArray();
  if (!arr) {
    err = kernelsFile + ": expected a list of kernels";
    return false;
  }
  for (size_t i = 0; i < arr->size(); ++i) {
    auto *o = (*arr)[i].getAsObject();
    std::string where = kernelsFile + ": kernel #" + std::to_string(i) + ": ";
    if (!o) {
      err = where + "not an object";
      return false;
    }
    std::optional<StringRef> key = o->getString("key");
    std::optional<double> flops = o->getNumber("flops"),
                          bytes = o->getNumber("bytes");
    if (!key || key->empty() || !flops || !bytes) {
      err = where + "needs \"key\", \"flops\" and \"bytes\"";
      return false;
    }
    if (*flops < 0 || *bytes < 0 || (*flops == 0 && *bytes == 0)) {
      err = where + "flops and bytes must be non-negative, not both zero";
      return false;
    }
    out.push_back({key->str(), *flops, *bytes});
  }
  return true;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "energy-prof: measure kernels into signatures\n");
  std::string err;
  std::unique_ptr<Device> dev = openDevice(err);
  if (!dev)
    return fail(err);
  if (command == "probe") {
    outs() << dev->identity() << ": SM clock " << dev->currentSmClock()
           << " MHz, energy counter " << dev->energyCounterMilliJoules()
           << " mJ, " << dev->temperature() << " degC, "
           << dev->supportedSmClocks().size() << " supported SM clocks\n";
    return 0;
  }
  if (command != "characterize")
    return fail("unknown command '" + command + "'; expected characterize or probe");
  if (kernelsFile.empty())
    return fail("characterize needs --kernels");
  if (runs < 2)
    return fail("--runs must be at least 2");
  if (!clocks.empty() && !allowClockChanges)
    return fail("--clocks changes the device's SM clock: add "
                "--allow-clock-changes to allow it (it is restored on exit)");
  if (dev->run(KernelSpec{"probe", 1, 1}) < 0)
    return fail(dev->identity() + ": running kernels needs the CUDA "
                "microbenchmarks, which are not built yet");
  std::vector<KernelSpec> kernels;
  if (!readKernels(kernels, err))
    return fail(err);
  ProtocolOptions opts;
  opts.runs = runs;
  std::vector<Measurement> entries;
  {
    ClockGuard guard(*dev); // restores the default clock on every path
    std::vector<int> sweep(clocks.begin(), clocks.end());
    if (sweep.empty())
      sweep.push_back(dev->currentSmClock());
    for (int mhz : sweep) {
      if (mhz != dev->currentSmClock() && !dev->setSmClock(mhz, err))
        return fail(err);
      for (const KernelSpec &k : kernels) {
        Measurement m;
        if (!characterize(*dev, k, opts, m, err))
          return fail(k.key + ": " + err);
        entries.push_back(m);
      }
    }
  }
  std::error_code ec;
  raw_fd_ostream os(output, ec);
  if (ec)
    return fail("cannot write " + output + ": " + ec.message());
  os << signatureDbJson(dev->identity(), entries,
                        StringRef(deviceName).starts_with("sim:") ? "simulated"
                                                                  : "measured");
  return 0;
}
