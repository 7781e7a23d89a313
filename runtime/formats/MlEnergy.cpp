//===- MlEnergy.cpp - reading ML.ENERGY leaderboard measurements ----------===//

#include "runtime/formats/MlEnergy.h"
#include "runtime/formats/Input.h"

#include "runtime/AtomicFile.h"

#include "runtime/formats/Json.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace llvm;

namespace energy {
namespace formats {

namespace {
bool readText(const std::string &path, std::string &text, std::string &err) {
  std::unique_ptr<MemoryBuffer> buf = readInput(path, err);
  if (!buf) {
    err = path + ": " + err;
    return false;
  }
  text = buf->getBuffer().str();
  return true;
}

struct Fields {
  const json::Object &o;
  const std::string &where;
  std::string &err;
  /// A field that is not there at all is said to be missing, not to be
  /// of the wrong kind.
  bool present(StringRef key) {
    if (o.get(key))
      return true;
    err = where + "." + key.str() + ": missing";
    return false;
  }
  bool number(StringRef key, double &out, bool positive = true) {
    if (!present(key))
      return false;
    std::optional<double> v = o.getNumber(key);
    if (!v || !std::isfinite(*v) || *v < 0 || (positive && *v == 0)) {
      err = where + "." + key.str() + ": expected a " +
            (positive ? "positive" : "non-negative") + " number";
      return false;
    }
    out = *v;
    return true;
  }
  /// A positive number no larger than `hi`: beyond it the value is no
  /// measurement of a serving configuration (`what` says why).
  bool atMost(StringRef key, double &out, double hi, const char *what,
              double lo = 0) {
    if (!number(key, out))
      return false;
    if (out > hi || out < lo) {
      char buf[96];
      if (out > hi)
        std::snprintf(buf, sizeof buf, "%g is above %g", out, hi);
      else
        std::snprintf(buf, sizeof buf, "%g is below %g", out, lo);
      err = where + "." + key.str() + ": " + buf + " (" + what +
            "): no measurement of a serving configuration";
      return false;
    }
    return true;
  }
  /// A batch cap: a whole number of sequences from 1 to a million.
  bool cap(StringRef key, double &out) {
    if (!number(key, out))
      return false;
    if (out != std::floor(out) || out > 1e6) {
      err = where + "." + key.str() +
            ": expected a whole number of sequences from 1 to 1000000";
      return false;
    }
    return true;
  }
  /// The realized mean batch: at least one sequence, at most the cap.
  bool batch(StringRef key, double &out, double cap, StringRef capKey) {
    if (!number(key, out))
      return false;
    if (out < 1 || out > cap * (1 + 1e-9)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", out);
      err = where + "." + key.str() + ": " + buf +
            " is not a realized mean batch from 1 to the cap (" + capKey.str() +
            " = " + std::to_string(int64_t(cap)) + ")";
      return false;
    }
    return true;
  }
  bool integer(StringRef key, int &out) {
    if (!present(key))
      return false;
    std::optional<int64_t> v = o.getInteger(key);
    if (!v || *v < 1 || *v > 4096) {
      err = where + "." + key.str() +
            ": expected a whole number from 1 to "
            "4096";
      return false;
    }
    out = int(*v);
    return true;
  }
  bool string(StringRef key, std::string &out) {
    if (!present(key))
      return false;
    std::optional<StringRef> v = o.getString(key);
    if (!v || v->empty()) {
      err = where + "." + key.str() + ": expected a string";
      return false;
    }
    out = v->str();
    return true;
  }
};

/// "NVIDIA A100-SXM4-40GB" / "H100 80GB HBM3" / "B200" -> "A100" / "H100" /
/// "B200", case aside; empty when unknown. The family is a word of the
/// name: "GH200" (Grace Hopper) is no H200, "H1000" no H100.
std::string gpuName(StringRef s) {
  for (const char *g : {"A100", "H100", "H200", "B200"})
    for (size_t at = s.find_insensitive(g); at != StringRef::npos;
         at = s.find_insensitive(g, at + 1)) {
      size_t end = at + StringRef(g).size();
      if ((at == 0 || !isAlnum(s[at - 1])) &&
          (end == s.size() || !isDigit(s[end])))
        return g;
    }
  return "";
}

const char *const kKnownGpus = " (known: A100, H100, H200, B200)";

/// A number as %g writes it (6 significant digits).
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// What the release files do not say of a mixture-of-experts model: its
/// routing, routed experts per MoE layer and experts per token, as the
/// models' published configurations (Hugging Face config.json) give them
/// (Qwen3 `num_experts` / `num_experts_per_tok`, DeepSeek-V3 and R1
/// `n_routed_experts` / `num_experts_per_tok`, their shared expert no
/// routed one, Llama 4 and Mixtral `num_local_experts` /
/// `num_experts_per_tok`, gpt-oss `num_local_experts` /
/// `experts_per_token`), and for v2, whose models.json gives totals only,
/// its active parameters (billions; the model cards; 0: the file says).
struct KnownMoe {
  const char *name;
  int experts, perToken;
  double activeB;
};

/// The known mixture of experts `model` names (case aside); null for
/// another model.
const KnownMoe *knownMoe(StringRef model) {
  static const KnownMoe known[] = {{"Qwen3-235B-A22B", 128, 8, 0},
                                   {"Qwen3-30B-A3B", 128, 8, 0},
                                   {"Qwen3-Coder-30B-A3B", 128, 8, 0},
                                   {"Qwen3-Coder-480B-A35B", 160, 8, 0},
                                   {"DeepSeek-V3", 256, 8, 0},
                                   {"DeepSeek-R1", 256, 8, 0},
                                   {"Llama-4-Maverick-17B-128E", 128, 1, 0},
                                   {"Llama-4-Scout-17B-16E", 16, 1, 0},
                                   {"gpt-oss-120b", 128, 4, 0},
                                   {"gpt-oss-20b", 32, 4, 0},
                                   {"Mixtral-8x7B", 8, 2, 12.9},
                                   {"Mixtral-8x22B", 8, 2, 39.1}};
  for (const KnownMoe &k : known)
    if (model.contains_insensitive(k.name))
      return &k;
  return nullptr;
}

/// A point's routing from the table, where it is a mixture of experts.
void setRouting(ServingPoint &p) {
  const KnownMoe *k = knownMoe(p.model);
  if (p.architecture != "moe" || !k)
    return;
  p.routedExperts = k->experts;
  p.expertsPerToken = k->perToken;
  p.routingOf = std::string("the published configuration of ") + k->name;
}

/// The parameter counts agree with each other and with the routing: no
/// more active parameters than all of them and, for a mixture of experts
/// of known routing, fewer, but no fewer than a token of the routing reads
/// (what every token reads, total - routed, not below 0).
bool checkParams(const ServingPoint &p, const std::string &where,
                 std::string &err) {
  std::string field = where + ".activated_params_billions: ";
  if (p.activeParamsB > p.totalParamsB) {
    err = field + num(p.activeParamsB) + " exceeds total_params_billions " +
          num(p.totalParamsB);
    return false;
  }
  if (p.expertsPerToken <= 0)
    return true;
  std::string routing = std::to_string(p.expertsPerToken) + " of its " +
                        std::to_string(p.routedExperts) + " routed experts";
  if (p.activeParamsB >= p.totalParamsB) {
    err = field + num(p.activeParamsB) + " is all of '" + p.model +
          "', a mixture of experts whose tokens each go to " + routing;
    return false;
  }
  if (calculus::routedExpertParams(p.totalParamsB, p.activeParamsB,
                                   p.routedExperts, p.expertsPerToken) >
      p.totalParamsB * (1 + 1e-9)) {
    err = field + num(p.activeParamsB) + " of " + num(p.totalParamsB) +
          " is fewer than a token of '" + p.model + "' reads (" + routing +
          ", and every other weight): at least " +
          num(p.totalParamsB * p.expertsPerToken / p.routedExperts);
    return false;
  }
  return true;
}

bool parseV3(const json::Object &root, const std::string &file,
             std::vector<ServingPoint> &out, std::string &err) {
  std::optional<StringRef> task = root.getString("task");
  const json::Array *configs = root.getArray("configurations");
  if (!task || !configs) {
    err = file + ": $: expected a v3 task file {\"task\", \"configurations\"}";
    return false;
  }
  for (size_t i = 0; i < configs->size(); ++i) {
    std::string where = file + ": $.configurations[" + std::to_string(i) + "]";
    const json::Object *o = (*configs)[i].getAsObject();
    if (!o) {
      err = where + ": expected an object";
      return false;
    }
    Fields f{*o, where, err};
    ServingPoint p;
    p.file = file;
    p.dataset = "v3";
    p.task = task->str();
    std::string arch, gpu, precision;
    double throughput = 0, medianMs = 0, p90Ms = 0, cap = 0;
    if (!f.string("model_id", p.model) || !f.string("architecture", arch) ||
        !f.string("gpu_model", gpu) ||
        !f.string("weight_precision", precision) ||
        !f.number("total_params_billions", p.totalParamsB) ||
        !f.number("activated_params_billions", p.activeParamsB) ||
        !f.integer("num_gpus", p.numGpus) ||
        !f.integer("tensor_parallel", p.tp) ||
        !f.integer("data_parallel", p.dp) ||
        !f.integer("expert_parallel", p.ep) || !f.cap("max_num_seqs", cap) ||
        !f.batch("avg_batch_size", p.batch, cap, "max_num_seqs") ||
        !f.atMost("avg_output_len", p.outputTokens, 1e7,
                  "from 1 to ten million tokens a request", 1) ||
        !f.atMost("avg_power_watts", p.powerW, 1e6, "a megawatt") ||
        !f.atMost("energy_per_token_joules", p.energyPerTokenJ, 1e4,
                  "from 1 uJ to 10 kJ a token", 1e-6) ||
        !f.atMost("output_throughput_tokens_per_sec", throughput, 1e9,
                  "from 0.001 to a billion tokens a second", 1e-3) ||
        !f.atMost("median_itl_ms", medianMs, 1e6, "1,000 s between tokens") ||
        !f.atMost("p90_itl_ms", p90Ms, 1e6, "1,000 s between tokens"))
      return false;
    // A deployment's parallel degrees fit on its GPUs (every v3 row: num_gpus
    // = tensor x data parallel, or the expert parallel degree): a row of 8-way
    // TP on 2 GPUs is no configuration that ran.
    if (p.tp * p.dp > p.numGpus || p.ep > p.numGpus) {
      err = where + ": tensor_parallel " + std::to_string(p.tp) +
            " x data_parallel " + std::to_string(p.dp) +
            " or expert_parallel " + std::to_string(p.ep) +
            " exceeds num_gpus " + std::to_string(p.numGpus);
      return false;
    }
    p.batchCap = cap;
    p.gpu = gpuName(gpu);
    p.gpuModel = gpu;
    p.where = "$.configurations[" + std::to_string(i) + "]";
    if (p.gpu.empty()) {
      err = where + ".gpu_model: unknown GPU '" + gpu + "'" + kKnownGpus;
      return false;
    }
    // What every v3 row satisfies, so that a unit slip (latencies in
    // seconds, an energy per request as per token) or a hand-edited row is
    // refused rather than ranked: the energy per token is the mean power
    // over the throughput (exactly, in the release), the p90 latency is
    // at least the median, and the median latency is within a factor of
    // the realized batch over the throughput (0.72-16 in the release:
    // prefill steps lengthen some gaps, a step yields a token per request).
    auto disagree = [&](const std::string &msg) {
      err = where + ": " + msg +
            ": no consistent measurement of a serving configuration (a "
            "unit slip?)";
      return false;
    };
    double fromPower = p.powerW / throughput;
    if (std::fabs(p.energyPerTokenJ - fromPower) > 0.02 * fromPower)
      return disagree("energy_per_token_joules " + num(p.energyPerTokenJ) +
                      " is not avg_power_watts / "
                      "output_throughput_tokens_per_sec = " +
                      num(fromPower));
    if (p90Ms < medianMs * (1 - 1e-9))
      return disagree("p90_itl_ms " + num(p90Ms) + " is below median_itl_ms " +
                      num(medianMs));
    double stepMs = 1e3 * p.batch / throughput;
    if (medianMs > 100 * stepMs || medianMs < 0.02 * stepMs)
      return disagree("median_itl_ms " + num(medianMs) + " is " +
                      num(medianMs / stepMs) +
                      " x avg_batch_size / output_throughput_tokens_per_sec "
                      "= " +
                      num(stepMs) + " ms");
    StringRef a(arch);
    p.architecture = a.contains_insensitive("MoE") ||
                             a.contains_insensitive("mixture of experts")
                         ? "moe"
                     : a.contains_insensitive("Hybrid") ? "hybrid"
                     : a.contains_insensitive("Dense")  ? "dense"
                                                        : "";
    if (p.architecture.empty()) {
      err = where + ".architecture: unknown architecture '" + arch +
            "' (expected one naming MoE, Hybrid or Dense, as the release's "
            "\"MoE Transformer\" and \"Dense Transformer\")";
      return false;
    }
    // A dense model reads every weight for every token (counts rounded
    // apart by under 1 % pass).
    if (p.architecture == "dense" && p.activeParamsB < 0.99 * p.totalParamsB) {
      err = where + ".activated_params_billions: " + num(p.activeParamsB) +
            " of total_params_billions " + num(p.totalParamsB) +
            ", but the architecture '" + arch +
            "' is dense: a dense model activates all of its parameters";
      return false;
    }
    setRouting(p);
    // A user's own mixture of experts (or one routed otherwise than the
    // table's model): its routing in the row, as serve-plan's moe_routing
    // writes it.
    if (o->get("routed_experts") || o->get("experts_per_token")) {
      int experts = 0, perToken = 0;
      if (!f.integer("routed_experts", experts) ||
          !f.integer("experts_per_token", perToken))
        return false;
      if (p.architecture != "moe") {
        err = where + ".routed_experts: routing given for '" + arch +
              "', not a mixture of experts";
        return false;
      }
      if (perToken > experts) {
        err = where + ".experts_per_token: " + std::to_string(perToken) +
              " exceeds routed_experts " + std::to_string(experts);
        return false;
      }
      p.routedExperts = experts;
      p.expertsPerToken = perToken;
      p.routingOf = "the rows' routed_experts and experts_per_token";
    }
    if (precision == "bfloat16" || precision == "float16")
      p.bytesPerParam = 2;
    else if (precision == "fp8")
      p.bytesPerParam = 1;
    else if (precision == "mxfp4")
      p.bytesPerParam = 0.53125; // 4-bit values + one 8-bit scale per 32
    else {
      err = where + ".weight_precision: unknown precision '" + precision + "'";
      return false;
    }
    // gpt-oss's MXFP4 checkpoint quantizes its experts alone (its model
    // card); the rest is bf16.
    p.sharedBytesPerParam = precision == "mxfp4" ? 2 : p.bytesPerParam;
    if (!checkParams(p, where, err))
      return false;
    p.secondsPerToken = 1 / throughput;
    p.meanItlS = medianMs / 1e3;
    p.p90ItlS = p90Ms / 1e3;
    out.push_back(std::move(p));
  }
  return true;
}

bool parseV2(const json::Object &o, const std::string &file,
             std::vector<ServingPoint> &out, std::string &err) {
  std::string where = file + ": $";
  Fields f{o, where, err};
  ServingPoint p;
  p.file = file;
  p.dataset = "v2";
  std::string gpu;
  double perReq = 0, throughput = 0, cap = 0;
  if (!f.string("Model", p.model) || !f.string("GPU", gpu) ||
      !f.integer("TP", p.tp) || !f.integer("PP", p.pp) ||
      !f.atMost("Energy/req (J)", perReq, 1e10, "10 GJ a request") ||
      !f.atMost("Avg TPOT (s)", p.meanItlS, 1e3, "1,000 s between tokens") ||
      !f.atMost("Token tput (tok/s)", throughput, 1e9,
                "from 0.001 to a billion tokens a second", 1e-3) ||
      !f.atMost("Avg Output Tokens", p.outputTokens, 1e7,
                "from 1 to ten million tokens a request", 1) ||
      !f.cap("Max BS (reqs)", cap) ||
      !f.batch("Avg BS (reqs)", p.batch, cap, "Max BS (reqs)"))
    return false;
  p.gpu = gpuName(gpu);
  p.gpuModel = gpu;
  p.where = "$";
  if (p.gpu.empty()) {
    err = where + ".GPU: unknown GPU '" + gpu + "'" + kKnownGpus;
    return false;
  }
  p.numGpus = p.tp * p.pp;
  p.batchCap = cap;
  p.energyPerTokenJ = perReq / p.outputTokens;
  if (p.energyPerTokenJ > 1e4 || p.energyPerTokenJ < 1e-6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", p.energyPerTokenJ);
    err = where + ": Energy/req (J) / Avg Output Tokens = " + buf +
          " J a token is not from 1 uJ to 10 kJ a token: no measurement of a "
          "serving configuration";
    return false;
  }
  p.secondsPerToken = 1 / throughput;
  // The task and the parameter count from the tree:
  // <task>/<GPU>/<org>/<model>/<file>, <task>/models.json.
  StringRef dir = sys::path::parent_path(file);
  for (int up = 0; up < 3; ++up)
    dir = sys::path::parent_path(dir);
  p.task = sys::path::filename(dir).str();
  std::string models = (dir + "/models.json").str(), text;
  if (dir.empty() || !readText(models, text, err)) {
    err = file + ": no models.json with parameter counts" +
          (dir.empty() ? std::string(": the file is not in the release's tree")
                       : ": " + err) +
          " (a v2 result is read in the release's tree, "
          "<task>/<GPU>/<org>/<model>/<result>.json, the task's models.json "
          "four folders up)";
    return false;
  }
  Expected<json::Value> doc = energy::formats::parseJson(text);
  const json::Object *m = doc ? doc->getAsObject() : nullptr;
  if (!doc)
    consumeError(doc.takeError());
  const json::Object *entry = m ? m->getObject(p.model) : nullptr;
  std::optional<double> params =
      entry ? entry->getNumber("params") : std::nullopt;
  if (!params || !(*params > 0)) {
    err = models + ": $." + p.model +
          ".params: expected the parameter count "
          "(billions)";
    return false;
  }
  p.totalParamsB = *params;
  const KnownMoe *moe = knownMoe(p.model);
  // v2 gives totals only: a known mixture of experts' active count (its
  // model card's) above the file's total is another model than the table's.
  if (moe && moe->activeB > *params) {
    err = models + ": $." + p.model + ".params: " + num(*params) +
          " billion, fewer than the " + num(moe->activeB) +
          " billion a token of " + moe->name +
          " reads (its model card's active parameters)";
    return false;
  }
  p.activeParamsB = moe && moe->activeB > 0 ? moe->activeB : *params;
  p.architecture = p.activeParamsB < p.totalParamsB ? "moe" : "dense";
  setRouting(p);
  p.bytesPerParam = p.sharedBytesPerParam = 2; // vLLM serves them in bf16
  out.push_back(std::move(p));
  return true;
}

/// Where a row is, "FILE:LINE:COL: $...": the errors that compare rows
/// come once every file is read, so the row's file is read again to place
/// it (only a regular file: standard input or a pipe cannot be, and is
/// named without a line).
std::string placed(const ServingPoint &q) {
  std::string ignored;
  struct stat st;
  if (q.file != "-" && ::stat(q.file.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    if (std::unique_ptr<MemoryBuffer> buf = readInput(q.file, ignored))
      return jsonLocated(q.file, buf->getBuffer(), q.where);
  return q.file + ": " + q.where;
}

bool readFile(const std::string &path, std::vector<ServingPoint> &out,
              std::string &err) {
  std::string text;
  if (!readText(path, text, err))
    return false;
  Expected<json::Value> doc = energy::formats::parseJson(text);
  if (!doc) {
    err = formats::jsonParseError(path, doc.takeError());
    return false;
  }
  const json::Object *root = doc->getAsObject();
  if (!root) {
    err = path + ": $: expected an object";
    return false;
  }
  if (root->get("configurations")) {
    if (parseV3(*root, path, out, err))
      return true;
    // A row's error at the row's field in the file ("FILE:LINE:COL:"),
    // found from its JSON path: files hold hundreds of rows.
    StringRef rest(err);
    if (rest.consume_front(path + ": $.configurations[")) {
      std::string where = "$.configurations[" + rest.split(": ").first.str();
      err =
          jsonLocated(path, text, where) + ": " + rest.split(": ").second.str();
    }
    return false;
  }
  if (root->get("Energy/req (J)"))
    return parseV2(*root, path, out, err);
  err = path + ": $: neither a v3 task file (\"configurations\") nor a v2 "
               "result (\"Energy/req (J)\")";
  return false;
}
} // namespace

bool readMlEnergy(const std::string &path, std::vector<ServingPoint> &out,
                  std::string &err) {
  StringRef p(path);
  if (p.ends_with(".tar.gz") || p.ends_with(".tgz") || p.ends_with(".tar")) {
    err = path + ": a tar archive (the v2 release): extract it (tar xzf) "
                 "and pass the folder";
    return false;
  }
  if (!sys::fs::is_directory(path))
    return readFile(path, out, err);
  // Symbolic links are followed, each folder and file once (by its
  // device and inode): a link to a parent folder made the walk loop, and
  // two such links grew it exponentially.
  std::vector<std::string> files;
  std::set<sys::fs::UniqueID> seen;
  sys::fs::UniqueID id;
  if (!sys::fs::getUniqueID(path, id))
    seen.insert(id);
  std::error_code ec;
  for (sys::fs::recursive_directory_iterator it(path, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    bool json = name.ends_with(".json") && name != "models.json";
    if (std::error_code statEc = sys::fs::getUniqueID(it->path(), id)) {
      // A result file that cannot be read is an error (readFile names it),
      // never skipped; an unreadable folder is one too.
      if (json)
        files.push_back(it->path());
      else if (!sys::fs::is_symlink_file(it->path())) {
        err = it->path() + ": " + statEc.message();
        return false;
      }
      continue; // a dangling link to something else
    }
    if (!seen.insert(id).second) {
      it.no_push();
      continue;
    }
    if (!json || sys::fs::is_directory(it->path()))
      continue;
    // A folder's result files are files: a pipe would block the walk, a
    // device never end.
    if (!sys::fs::is_regular_file(it->path())) {
      err = it->path() + ": not a regular file (a folder's result files are "
                         "read as files; a pipe, a device or a dangling "
                         "link there is not)";
      return false;
    }
    files.push_back(it->path());
  }
  if (ec) {
    err = path + ": " + ec.message();
    return false;
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    err = path + ": no result files (*.json) below it (the v2 release is a "
                 "tar archive: extract it first)";
    return false;
  }
  for (const std::string &f : files)
    if (!readFile(f, out, err))
      return false;
  return true;
}

std::vector<calculus::ServingObservation>
observations(const std::vector<ServingPoint> &points) {
  std::vector<calculus::ServingObservation> obs;
  for (const ServingPoint &p : points) {
    calculus::ServingObservation o;
    o.model = p.model;
    o.gpu = p.gpu;
    o.gpuModel = p.gpuModel;
    o.architecture = p.architecture;
    o.dataset = p.dataset;
    o.task = p.task;
    o.tp = p.tp;
    o.ep = p.ep;
    o.dp = p.dp;
    o.gpus = p.numGpus;
    o.cap = p.batchCap;
    o.batch = p.batch;
    o.tau = p.secondsPerToken;
    o.e = p.energyPerTokenJ;
    o.p90ItlS = p.p90ItlS;
    o.weightBytes = p.totalParamsB * 1e9 * p.bytesPerParam;
    o.flopsPerToken = 2 * p.activeParamsB * 1e9;
    o.fp8 = p.bytesPerParam == 1 && p.sharedBytesPerParam == 1;
    // A mixture of experts of known routing: its routed experts and the
    // rest (what every token reads: attention, embeddings, dense and
    // shared layers; checkParams keeps it at or above 0), each at its own
    // bytes per parameter (the rest at a whole model's where the routing,
    // and so the split, is not known).
    if (p.expertsPerToken > 0) {
      double routed = calculus::routedExpertParams(
          p.totalParamsB, p.activeParamsB, p.routedExperts, p.expertsPerToken);
      o.routedExperts = p.routedExperts;
      o.expertsPerToken = p.expertsPerToken;
      o.routingOf = p.routingOf;
      o.expertShare = double(p.expertsPerToken) / p.routedExperts;
      o.expertBytes = routed * 1e9 * p.bytesPerParam;
      o.weightBytes = o.expertBytes +
                      (p.totalParamsB - routed) * 1e9 * p.sharedBytesPerParam;
    }
    obs.push_back(o);
  }
  return obs;
}

bool readObservations(const std::vector<std::string> &paths,
                      std::vector<calculus::ServingObservation> &out,
                      std::string &err) {
  std::vector<ServingPoint> pts;
  for (const std::string &p : paths)
    if (!readMlEnergy(p, pts, err))
      return false;
  if (pts.empty()) {
    err = "no measurements in " + llvm::join(paths, ", ");
    return false;
  }
  // Cells are keyed by GPU family ("H100"): two variants of one family in
  // one dataset (H100 SXM and PCIe, A100 40 and 80 GB) would be pooled into
  // one cell, their means matching neither GPU. Two spellings of one card
  // ("H100", "NVIDIA H100 80GB HBM3") are one variant: names differ only
  // where one says PCIe or NVL and the other does not, or both give a
  // memory size and the sizes differ.
  auto conflict = [](StringRef a, StringRef b) {
    auto has = [](StringRef s, StringRef w) {
      return s.contains_insensitive(w);
    };
    auto memory = [](StringRef s) -> std::optional<int> {
      for (size_t i = 0; i < s.size(); ++i)
        if (std::isdigit(static_cast<unsigned char>(s[i])) &&
            (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])) ||
             s[i - 1] == '-')) {
          size_t j = i;
          while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
            ++j;
          StringRef rest = s.drop_front(j).ltrim();
          int gb = 0;
          if (rest.starts_with_insensitive("GB") &&
              !s.substr(i, j - i).getAsInteger(10, gb))
            return gb;
          i = j;
        }
      return std::nullopt;
    };
    std::optional<int> ma = memory(a), mb = memory(b);
    return has(a, "PCIE") != has(b, "PCIE") || has(a, "NVL") != has(b, "NVL") ||
           (ma && mb && *ma != *mb);
  };
  std::map<std::pair<std::string, std::string>, const ServingPoint *> variant;
  for (const ServingPoint &q : pts) {
    auto [it, fresh] = variant.insert({{q.dataset, q.gpu}, &q});
    if (!fresh && conflict(it->second->gpuModel, q.gpuModel)) {
      err = placed(q) + ": GPU '" + q.gpuModel + "' and '" +
            it->second->gpuModel + "' (" + placed(*it->second) + ") are both " +
            q.gpu +
            ": their measurements would be pooled into one cell; give one "
            "variant's files at a time";
      return false;
    }
  }
  // A model's rows of one dataset describe one model: rows that disagree
  // on its architecture, parameters or precision would be fitted as one
  // cell's with different weights read (or none of its own).
  std::map<std::pair<std::string, std::string>, const ServingPoint *> model;
  for (const ServingPoint &q : pts) {
    auto [it, fresh] = model.insert({{q.dataset, q.model}, &q});
    const ServingPoint &f = *it->second;
    if (!fresh &&
        (f.architecture != q.architecture || f.totalParamsB != q.totalParamsB ||
         f.activeParamsB != q.activeParamsB ||
         f.bytesPerParam != q.bytesPerParam)) {
      auto says = [](const ServingPoint &x) {
        return x.architecture + ", " + num(x.totalParamsB) + "B parameters (" +
               num(x.activeParamsB) + "B active), " + num(x.bytesPerParam) +
               " bytes each";
      };
      err = placed(q) + ": '" + q.model + "' is " + says(q) + " here but " +
            says(f) + " at " + placed(f) + ": one model's rows must agree";
      return false;
    }
  }
  // One measurement read twice (a file passed twice, or a copy of it)
  // would count as two and narrow every interval: refused.
  std::map<std::tuple<std::string, std::string, std::string, std::string, int,
                      int, int, int, double, double, double, double>,
           const ServingPoint *>
      seen;
  for (const ServingPoint &q : pts) {
    auto [it, fresh] = seen.insert(
        {{q.dataset, q.task, q.model, q.gpu, q.numGpus, q.tp, q.ep, q.dp,
          q.batchCap, q.batch, q.energyPerTokenJ, q.secondsPerToken},
         &q});
    if (!fresh) {
      err = placed(q) + ": " + q.model + " on " + q.gpu + " at batch cap " +
            (q.batchCap == std::floor(q.batchCap)
                 ? std::to_string(int64_t(q.batchCap))
                 : llvm::formatv("{0}", q.batchCap).str()) +
            " is the same measurement as " + placed(*it->second) +
            (q.file == it->second->file ? " (a row written twice?)"
                                        : " (a file passed twice?)");
      return false;
    }
  }
  out = observations(pts);
  return true;
}

} // namespace formats
} // namespace energy
