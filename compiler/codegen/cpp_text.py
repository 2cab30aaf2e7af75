"""The fixed C++ of every emitted unit: the helpers before ``buildGraph`` and ``main``
(attach a device of kNumIpus x kReplicas IPUs, build the graph replicated kReplicas times
and load the engine, write weights.bin to every replica, connect each replica's streams to
its part of one host buffer per stream, run program 0, write the outputs and
weights.out.bin).

With replicas, DIR/<stream>.bin holds every replica's transfers, replica after replica;
weights.bin the variables once (for every replica) or once per replica, and weights.out.bin
every replica's variables, replica after replica; the host write (read) of a variable takes
(gives) one copy per replica, replica after replica."""

import re
from typing import Any

HELPERS = (
    "// Maps t's elements in equal contiguous parts over numTiles tiles from firstTile (the",
    "// linear mapping poplar-map-tiles planned).",
    "void mapLinearly(poplar::Graph &g, const poplar::Tensor &t, unsigned firstTile, unsigned numTiles) {",
    "  poplar::Tensor flat = t.flatten();",
    "  std::size_t n = flat.numElements(), per = (n + numTiles - 1) / numTiles;",
    "  for (unsigned i = 0; i < numTiles && i * per < n; ++i)",
    "    g.setTileMapping(flat.slice(i * per, std::min(n, (i + 1) * per)), firstTile + i);",
    "}",
    "",
    "std::size_t hostBytes(const poplar::Type &type) {",
    "  if (type == poplar::FLOAT || type == poplar::INT || type == poplar::UNSIGNED_INT) return 4;",
    "  if (type == poplar::LONGLONG) return 8;",
    "  if (type == poplar::HALF) return 2;",
    "  return 1;",
    "}",
    "",
)

MAIN = (
    "int main(int argc, char **argv) {",
    "  if (argc != 2) {",
    "    std::cerr << \"usage: \" << argv[0] << \" DIR\\n\";",
    "    return 2;",
    "  }",
    "  const std::string dir = argv[1];",
    "  try {",
    "    auto manager = poplar::DeviceManager::createDeviceManager();",
    "    poplar::Device device;",
    "    for (auto &candidate : manager.getDevices(poplar::TargetType::IPU, kNumIpus * kReplicas))",
    "      if (candidate.attach()) { device = std::move(candidate); break; }",
    "    if (!device.isAttached())",
    "      throw std::runtime_error(\"no device of \" + std::to_string(kNumIpus * kReplicas) + \" IPU(s) to attach to\");",
    "    // kReplicas replicas of the graph, kNumIpus IPUs each.",
    "    poplar::Graph graph(device.getTarget(), poplar::replication_factor(kReplicas));",
    "    poplar::Engine engine(graph, buildGraph(graph));",
    "    engine.load(device);",
    "",
    "    auto readFile = [&](const std::string &path, std::size_t bytes) {",
    "      std::ifstream file(path, std::ios::binary | std::ios::ate);",
    "      if (!file) throw std::runtime_error(\"cannot open \" + path);",
    "      if (static_cast<std::size_t>(file.tellg()) != bytes)",
    "        throw std::runtime_error(path + \" holds \" + std::to_string(file.tellg()) + \" bytes, expected \" + std::to_string(bytes));",
    "      std::vector<char> data(bytes);",
    "      file.seekg(0);",
    "      file.read(data.data(), static_cast<std::streamsize>(bytes));",
    "      return data;",
    "    };",
    "    // The weights: each host-provided variable's elements, in order, once (every replica starts",
    "    // from them) or once per replica, replica after replica (weights grouped across replicas).",
    "    std::size_t weightBytes = 0;",
    "    for (const auto &w : hostWrites) weightBytes += w.elements * hostBytes(w.type);",
    "    std::size_t weightFileBytes = 0;",
    "    if (std::ifstream probe{dir + \"/weights.bin\", std::ios::binary | std::ios::ate}) weightFileBytes = probe.tellg();",
    "    bool perReplica = kReplicas > 1 && weightBytes > 0 && weightFileBytes == weightBytes * kReplicas;",
    "    std::vector<char> weights = readFile(dir + \"/weights.bin\", perReplica ? weightBytes * kReplicas : weightBytes);",
    "    std::size_t offset = 0;",
    "    for (const auto &w : hostWrites) {",
    "      std::size_t bytes = w.elements * hostBytes(w.type);",
    "      std::vector<char> copies;",
    "      for (unsigned r = 0; r < kReplicas; ++r) {",
    "        const char *from = weights.data() + (perReplica ? r * weightBytes : 0) + offset;",
    "        copies.insert(copies.end(), from, from + bytes);",
    "      }",
    "      if (w.remote)  // an off-chip variable: its value lives in its remote buffer",
    "        for (unsigned r = 0; r < kReplicas; ++r) engine.copyToRemoteBuffer(copies.data() + r * bytes, w.remote, 0, r);",
    "      else",
    "        engine.writeTensor(w.handle, copies.data(), copies.data() + copies.size());",
    "      offset += bytes;",
    "    }",
    "    // One host buffer per stream holding all of its transfers, replica after replica; each",
    "    // replica's stream reads (or writes) its part, transfer after transfer (circularly).",
    "    std::vector<std::vector<char>> buffers(hostStreams.size());",
    "    std::vector<std::size_t> cursors(hostStreams.size() * kReplicas, 0);",
    "    for (std::size_t i = 0; i < hostStreams.size(); ++i) {",
    "      const HostStream &s = hostStreams[i];",
    "      std::size_t transfer = s.elements * hostBytes(s.type), part = transfer * s.transfers;",
    "      buffers[i] = s.toDevice ? readFile(dir + \"/\" + s.handle + \".bin\", part * kReplicas) : std::vector<char>(part * kReplicas);",
    "      if (!part) continue;",
    "      for (unsigned r = 0; r < kReplicas; ++r) {",
    "        char *base = buffers[i].data() + r * part;",
    "        std::size_t *cursor = &cursors[i * kReplicas + r];",
    "        bool toDevice = s.toDevice;",
    "        engine.connectStreamToCallback(s.handle, r, [=](void *p) {",
    "          if (*cursor + transfer > part) *cursor = 0;",
    "          if (toDevice) std::memcpy(p, base + *cursor, transfer);",
    "          else std::memcpy(base + *cursor, p, transfer);",
    "          *cursor += transfer;",
    "        });",
    "      }",
    "    }",
    "    engine.run(0);",
    "    // The host-provided variables after the run (a training step updates them), as weights.out.bin:",
    "    // each replica's, replica after replica.",
    "    std::vector<char> updated(weightBytes * kReplicas);",
    "    offset = 0;",
    "    for (const auto &w : hostWrites) {",
    "      std::size_t bytes = w.elements * hostBytes(w.type);",
    "      std::vector<char> copies(bytes * kReplicas);",
    "      if (w.remote)",
    "        for (unsigned r = 0; r < kReplicas; ++r) engine.copyFromRemoteBuffer(w.remote, copies.data() + r * bytes, 0, r);",
    "      else",
    "        engine.readTensor(std::string(w.handle) + \"/read\", copies.data(), copies.data() + copies.size());",
    "      for (unsigned r = 0; r < kReplicas; ++r)",
    "        std::copy(copies.begin() + r * bytes, copies.begin() + (r + 1) * bytes, updated.begin() + r * weightBytes + offset);",
    "      offset += bytes;",
    "    }",
    "    std::ofstream(dir + \"/weights.out.bin\", std::ios::binary).write(updated.data(), static_cast<std::streamsize>(updated.size()));",
    "    for (std::size_t i = 0; i < hostStreams.size(); ++i) {",
    "      if (hostStreams[i].toDevice) continue;",
    "      std::ofstream file(dir + \"/\" + hostStreams[i].handle + \".bin\", std::ios::binary);",
    "      file.write(buffers[i].data(), static_cast<std::streamsize>(buffers[i].size()));",
    "      if (!file) throw std::runtime_error(\"cannot write \" + dir + \"/\" + hostStreams[i].handle + \".bin\");",
    "    }",
    "  } catch (const std::exception &error) {",
    "    std::cerr << \"error: \" << error.what() << \"\\n\";",
    "    return 1;",
    "  }",
    "  return 0;",
    "}",
)

# Inserted into MAIN before the streams when the program draws random numbers (poprand).
RANDOM_SEED = (
    "    // The seed of the random draws: DIR/randomSeed.bin, two UNSIGNED_INT (Options.randomSeed as",
    "    // a little-endian 64-bit integer), the same for every replica.",
    "    std::vector<char> seed = readFile(dir + \"/randomSeed.bin\", 8), seeds;",
    "    for (unsigned r = 0; r < kReplicas; ++r) seeds.insert(seeds.end(), seed.begin(), seed.end());",
    "    engine.writeTensor(\"randomSeed\", seeds.data(), seeds.data() + seeds.size());",
)


def sanitize(name: str) -> str:
    """A C++ identifier from any name: other characters become _, a leading digit gets one."""
    text = re.sub(r"[^0-9A-Za-z_]", "_", name)
    return text if text and not text[0].isdigit() else "_" + text


def cstr(text: str) -> str:
    """A C++ string literal of ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def location_of(op: Any) -> str:
    """``name at file:line:col`` from an op's (fused, named) location; ``unknown`` if none."""
    text = str(op.location)
    files = re.findall(r'"([^"]+)":(\d+):(\d+)', text)
    names = [n for n in re.findall(r'"([^"]+)"\(', text) if not n.startswith("<")]
    place = f"{files[0][0]}:{files[0][1]}:{files[0][2]}" if files else ""
    if names and place:
        return f"{names[0]} at {place}"
    return place or (names[0] if names else "unknown")
