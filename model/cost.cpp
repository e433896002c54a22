#include "model/cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <optional>
#include <vector>


namespace memsim {
namespace {

constexpr int kAssumedRegisters = 32;

// The L2's sector writes, given (KernelCounts::l2_write_sectors_given) or predicted (the drain table, below): the
// partial stores' pieces beyond them reached the L2 merged, whole sectors from pieces of several warps (the L1
// merges a sector's pieces that arrive close together: docs/history/model_notebook.md, "The L1 merges a sector's
// pieces from two warps"). The merged share of the pieces, (pieces + whole-sector writes - l2_writes) / (pieces -
// the partial bytes' whole sectors),
// leaves the partial-store requests and bytes of every class and joins the whole sectors, as the next-store
// merges below do; so do the sectors from warps (a merged sector does not wait in the L2 for its last piece).
KernelCounts with_l2_writes(const KernelCounts& c, double l2_writes, int sector_bytes, double& merged) {
  merged = 0;
  const double partial_bytes = c.partial_bytes();
  const double spare = c.partial_store_sectors - partial_bytes / sector_bytes;
  if (spare <= 0) return c;
  merged = std::clamp((c.partial_store_sectors + c.l2_store_sectors - l2_writes) / spare, 0.0, 1.0);
  KernelCounts m = c;
  // The crossbar's slots: the merged pieces' sectors become their whole sectors, and their requests fall by the
  // same ratio (pieces a sector to one).
  const double whole_per_piece = partial_bytes / sector_bytes / c.partial_store_sectors;
  for (int w = 0; w < 3; ++w) {
    const double bytes = merged * c.partial_store_bytes[w], requests = merged * c.partial_store_requests[w];
    m.partial_store_requests[w] -= requests;
    m.partial_store_bytes[w] -= bytes;
    m.l2_store_sectors += bytes / sector_bytes;
    m.l2_write_slots -= requests * (1 - whole_per_piece);
  }
  m.l2_write_slots -= merged * spare;
  m.partial_store_sectors -= merged * c.partial_store_sectors;
  m.half_sector_piece_bytes *= 1 - merged;
  m.narrow_lane_piece_bytes *= 1 - merged;
  m.lane4_half_sector_bytes *= 1 - merged;
  m.sectors_from_warps *= 1 - merged;
  m.sectors_from_warps_in_one_round *= 1 - merged;
  return m;
}

// Linear interpolation in a table's row, the abscissa clamped to its ends.
double interpolate(const double* xs, const double* ys, int n, double x) {
  x = std::clamp(x, xs[0], xs[n - 1]);
  for (int i = 0; i + 1 < n; ++i)
    if (x <= xs[i + 1]) return xs[i + 1] > xs[i] ? ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i]) : ys[i];
  return ys[n - 1];
}

// The share of a warp's next-store pairs the L1 merges, from the profile's drain table: in log2 of the stores a
// warp first (2, 8, 32), then in the warps a block (1 to 16), each clamped to the grid (memsim-microbench
// --drain-merges; lab/studies/l1_merges/drain_law.py judged it on the held-out sets before it was charged).
double drain_merge_share(const double* table, double warps, double stores) {
  constexpr int kWarps = int(std::size(kDrainMergeWarps)), kStores = int(std::size(kDrainMergeStores));
  double log_stores[kStores], at_warps[kWarps], warps_grid[kWarps];
  for (int s = 0; s < kStores; ++s) log_stores[s] = std::log2(double(kDrainMergeStores[s]));
  for (int w = 0; w < kWarps; ++w) {
    warps_grid[w] = kDrainMergeWarps[w];
    at_warps[w] = interpolate(log_stores, table + kStores * w, kStores, std::log2(std::max(stores, 1.0)));
  }
  return interpolate(warps_grid, at_warps, kWarps, warps);
}

// Pairs of pieces a warp completes into whole sectors in consecutive store instructions (two halves, or 24 and 8
// bytes) reach the L2 as whole sectors in blocks of up to next_store_merge_warps warps whose warps store at most
// next_store_merge_stores times (model/profile.hpp): the L1 merges them. Their share of the partial pieces' bytes
// leaves the partial-store requests and bytes (the same share of each lane-width class: a kernel's partial stores
// are of one class in practice) and joins the whole sectors; each merged pair is one request through the crossbar
// instead of two, with its sector whole instead of twice in pieces. `merged` gets the share (0 where the rule does not apply).
KernelCounts with_next_store_merges(const KernelCounts& c, const CostConstants& k, int sector_bytes, double& merged) {
  merged = 0;
  if (c.l2_write_sectors_given >= 0) return with_l2_writes(c, c.l2_write_sectors_given, sector_bytes, merged);
  // The drain table, for pairs from lanes of 2 or 4 bytes (those of 8 and 16 go by the rule below): the pairs'
  // merged share, as L2 writes saved (half a piece each), charged as given writes would be.
  const double partial_bytes = c.partial_bytes();
  const double warps = c.warps();
  if (k.has_drain_merges && c.next_store_pair_share > 0 && c.partial_store_sectors > 0 && warps > 0 &&
      partial_bytes > 0) {
    const int lanes = c.narrow_lane_piece_bytes >= 0.5 * partial_bytes ? 0
                      : c.partial_store_bytes[kLanes4] >= 0.5 * partial_bytes ? 1
                                                                               : -1;
    if (lanes >= 0) {
      const double share =
          c.next_store_pair_share * drain_merge_share(k.drain_merges[lanes][c.shared_bytes_per_block > 0 ? 1 : 0],
                                                      c.warps_per_block(), c.global_store_instructions / warps);
      return with_l2_writes(c, c.partial_store_sectors + c.l2_store_sectors - share * c.partial_store_sectors / 2,
                            sector_bytes, merged);
    }
  }
  if (k.next_store_merge_warps <= 0 || c.next_store_pair_share <= 0 ||
      c.warps_per_block() > k.next_store_merge_warps)
    return c;
  // Only as far as measured: with more store instructions a warp the share falls with the SM's store traffic
  // (runs of 2 to 8 pairs a warp in 2-warp blocks: 7-30% at full occupancy, 89-100% at 1 or 2 blocks an SM).
  if (warps <= 0 || c.global_store_instructions / warps > k.next_store_merge_stores) return c;
  merged = std::min(1.0, c.next_store_pair_share);
  KernelCounts m = c;
  double merged_bytes = 0;
  for (int w = 0; w < 3; ++w) {
    const double bytes = merged * c.partial_store_bytes[w], requests = merged * c.partial_store_requests[w];
    m.partial_store_requests[w] -= requests;
    m.partial_store_bytes[w] -= bytes;
    m.l2_store_sectors += bytes / sector_bytes;
    // The pairs' requests and the half sectors they touched took a slot each: merged, half as many.
    m.l2_write_slots -= 0.5 * (requests + bytes / (0.5 * sector_bytes));
    merged_bytes += bytes;
  }
  m.half_sector_piece_bytes = std::max(0.0, c.half_sector_piece_bytes - merged_bytes);
  m.lane4_half_sector_bytes *= 1 - merged;
  return m;
}

// The bottleneck in words a user acts on: an L1 term made mostly of conflict wavefronts is bank conflicts.
std::string name_bottleneck(const std::string& term, const KernelCounts& c) {
  if (term != kTermL1) return term;
  const double shared = c.shared_wavefronts, global = c.l1_global_wavefronts;
  if (shared >= global) return c.shared_conflict_wavefronts > 0.5 * shared ? "shared-memory bank conflicts"
                                                                           : "shared-memory wavefronts";
  return "uncoalesced accesses (L1 sectors per request)";
}

// What occupancy reads of a launch: its block's threads, shared memory and registers a thread (given, counted,
// else assumed).
BlockResources block_resources(const KernelCounts& c, const PredictOptions& o) {
  BlockResources res;
  res.threads = c.threads_per_block;
  res.shared_bytes = c.shared_bytes_per_block;
  res.regs_per_thread = o.regs_per_thread > 0 ? o.regs_per_thread : c.regs_per_thread > 0 ? c.regs_per_thread : kAssumedRegisters;
  return res;
}

}  // namespace

std::string caveat_words(const char* format, ...) {
  char text[400];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

std::string with_evidence(const std::string& words, const std::string& evidence) {
  return words + " (" + evidence + ")";
}

bool charges_dram_order(const CostConstants& k) {
  return k.scattered_read_ps_per_byte > 0 || k.scattered_write_ps_per_byte > 0;
}

double Prediction::term(const std::string& name) const {
  for (const auto& [n, v] : terms_us)
    if (n == name) return v;
  return 0.0;
}

namespace {
// 1 at 2 warps, at4 and at8 at 4 and 8, geometric in the warps between them, at8 beyond, one_warp at 1.
double sector_warp_factor(double one_warp, double at4, double at8, int warps) {
  if (warps <= 1) return one_warp;
  if (warps <= 2) return 1;
  if (warps >= 8) return at8;
  return warps <= 4 ? std::pow(at4, std::log2(warps / 2.0)) : at4 * std::pow(at8 / at4, std::log2(warps / 4.0));
}
}  // namespace

double read_back_sector_warp_factor(const CostConstants& k, int warps) {
  return sector_warp_factor(k.read_back_one_warp_factor, k.read_back_sector_warp_factors[0],
                            k.read_back_sector_warp_factors[1], warps);
}

double closed_steps_sector_warp_factor(const CostConstants& k, int warps) {
  return sector_warp_factor(k.read_back_one_warp_factor, k.read_back_closed_sector_warp_factors[0],
                            k.read_back_closed_sector_warp_factors[1], warps);
}

double rounds_open_at_once(const CostConstants& k, double rounds, int warps) {
  const int i = warps <= 2 ? 0 : warps <= 5 ? 1 : 2;  // nearest of 2, 4 and 8 warps a sector
  if (k.read_back_steps_open_spread[i] < 0 || rounds <= 1) return std::max(1.0, rounds);
  return std::min(rounds,
                  1 + k.read_back_steps_open_spread[i] * std::pow(rounds - 1, k.read_back_steps_open_power[i]));
}

// The most lines held open at once that memsim-held-open's fitted runs reached (lab/calibration/
// fit_held_open.py fits those up to 300,000; the runs hold 270,336 or 540,672).
constexpr double kHeldOpenFittedLines = 300000;
// The most steps a block walked in memsim-step-lines' runs, which cost.read_back.closed_steps is fitted on.
constexpr double kClosedStepsFitted = 16;

Prediction predict(const KernelCounts& counts, const DeviceProfile& p, const PredictOptions& o) {
  const CostConstants& k = p.cost;
  Prediction pr;
  pr.device = p.name;
  std::optional<KernelCounts> given;  // the counts with the option's L2 writes, where it gives them
  if (o.l2_write_sectors >= 0) {
    given = counts;
    given->l2_write_sectors_given = o.l2_write_sectors;
  }
  const KernelCounts& in = given ? *given : counts;
  const KernelCounts c = with_next_store_merges(in, k, p.sector_bytes, pr.next_store_merged_share);
  pr.partial_store_sectors = in.partial_store_sectors;
  pr.next_store_pair_share = in.next_store_pair_share;
  if (in.l2_write_sectors_given >= 0) {
    pr.given_merged_piece_share = pr.next_store_merged_share;
    pr.next_store_merged_share = 0;
    // A count no launch of these stores can give: more writes than the sectors they send the L2, or fewer than
    // their bytes fill (1% and half a sector of slack for a count read off another run of the same launch).
    const double sent = in.partial_store_sectors + in.l2_store_sectors;
    const double fewest = in.partial_bytes() / p.sector_bytes + in.l2_store_sectors;
    const double given_writes = in.l2_write_sectors_given;
    if (given_writes > 1.01 * sent + 0.5 || given_writes < 0.99 * fewest - 0.5)
      pr.caveats.push_back(caveat_words(
          "the L2 sector writes given (%.0f) are %s the %.0f sectors this launch's stores %s: a count of another "
          "launch or metric? %s",
          given_writes, given_writes > sent ? "more than" : "fewer than", given_writes > sent ? sent : fewest,
          given_writes > sent ? "send the L2" : "fill at the fewest",
          given_writes > sent ? "No piece is charged as merged" : "Every piece is charged as merged"));
  }
  pr.occupancy = o.occupancy ? *o.occupancy : occupancy(p, block_resources(c, o));
  pr.waves = waves(p, pr.occupancy, c.blocks);

  const double sms = p.sms, clock_hz = p.sm_clock_mhz * 1e6;
  // Per-SM work goes to the busiest SM: blocks are dealt out evenly, the last round partly.
  const double per_sm = c.blocks > 0 ? std::ceil(double(c.blocks) / sms) / double(c.blocks) : 0.0;

  // Read-back of partly written lines: the lines a block writes in pieces, times the blocks resident at once;
  // past read_back_from_lines the L2 reads a growing fraction of the partial stores' bytes back from DRAM
  // before it writes them, a cost per byte on the L2's partial-store path and the bytes on DRAM's.
  // The fraction grows with the warps that write each sector in pieces: the partly written sectors' mean
  // factor multiplies it.
  // A block writing such lines over several rounds holds rounds_open_at_once of its rounds' lines at a time,
  // by the warps that write their sectors.
  const double resident_blocks = std::min(double(c.blocks), sms * double(pr.occupancy.blocks_per_sm));
  const double lines_per_block = total_lines(c.partial_lines_per_block);
  const double rounds = std::max(1.0, c.partial_line_rounds);
  double open_per_block = 0;
  for (int w = 0; w <= kWarpSize; ++w)
    open_per_block += c.partial_lines_per_block[w] * rounds_open_at_once(k, rounds, w) / rounds;
  pr.closed_line_rounds = rounds;
  pr.closed_line_rounds_open = lines_per_block > 0 ? open_per_block / lines_per_block * rounds : 1.0;
  pr.open_partial_lines = open_per_block * resident_blocks;
  if (lines_per_block > 0) {
    double weighted = 0;
    for (int w = 1; w <= kWarpSize; ++w)
      weighted += read_back_sector_warp_factor(k, w) * c.partial_lines_per_block[w];
    pr.read_back_warp_factor = weighted / lines_per_block;
  }
  // The lines-open law: the lines of the rounds open at once past read_back_from_lines.
  const auto lines_law = [&](double open_lines) {
    return k.read_back_from_lines > 0 && open_lines > k.read_back_from_lines
               ? std::min(1.0, pr.read_back_warp_factor * k.read_back_per_log_lines *
                                   std::log(open_lines / k.read_back_from_lines))
               : 0.0;
  };
  if (k.read_back_closed_per_log_steps > 0 && lines_per_block > 0) {
    // Read back for two reasons, either enough: too many lines open at once (the lines-open law at one round's
    // lines, as memsim-partial-lines' and the strided stores' one-round blocks read back), and the steps a
    // block's warps drift apart over (memsim-step-lines: at 64 warps an SM, 16-byte pieces from 4-byte lanes
    // read back what those from 8-byte lanes do, though a block of them holds half the lines open): a share of
    // the bytes at risk that grows with the rounds, of which the L2 evicts more the harder the SM's warps press
    // it. A line's writers are its sectors' (w warps each, at most the block's warps), so a warp writes
    // sum(lines x writers) / (warps x rounds) lines in a round.
    const int block_warps = std::max(1, c.warps_per_block());
    const double sectors_a_line = double(p.line_bytes) / double(p.sector_bytes);
    double weighted = 0, writer_lines = 0;
    for (int w = 1; w <= kWarpSize; ++w) {
      weighted += closed_steps_sector_warp_factor(k, w) * c.partial_lines_per_block[w];
      writer_lines += c.partial_lines_per_block[w] * std::min(double(block_warps), sectors_a_line * w);
    }
    pr.closed_warp_factor = weighted / lines_per_block;
    pr.closed_lines_a_warp = writer_lines / (double(block_warps) * rounds);
    pr.closed_warps_per_sm = sms > 0 ? resident_blocks / sms * block_warps : 0.0;
    pr.open_partial_lines = lines_per_block / rounds * resident_blocks;
    pr.closed_line_rounds_open = 1;
    pr.closed_by_lines = lines_law(pr.open_partial_lines);
    pr.closed_at_risk = k.read_back_closed_per_log_steps * std::log1p(k.read_back_closed_steps_scale * (rounds - 1));
    const double stress =
        pr.closed_warps_per_sm * std::pow(pr.closed_lines_a_warp, k.read_back_closed_lines_power);
    pr.closed_evicted = 1 - std::exp(-std::pow(stress / k.read_back_closed_stress, k.read_back_closed_stress_power));
    const double by_steps = std::min(1.0, pr.closed_warp_factor * pr.closed_at_risk * pr.closed_evicted);
    pr.read_back_fraction = 1 - (1 - pr.closed_by_lines) * (1 - by_steps);
  } else {
    pr.read_back_fraction = lines_law(pr.open_partial_lines);
  }
  // Lines held open over rounds (sim/partial_lines.hpp) are evicted by how many are open at once, U: their
  // share of the partly written lines reads back 1 - exp(-(U / lines)^exponent) instead (memsim-held-open).
  // Lines in half-sector pieces count for read_back_held_open_half_sector_factor of a line.
  pr.lines_open_at_once =
      (c.lines_open_at_once_per_block[0] + k.read_back_held_open_half_sector_factor * c.lines_open_at_once_per_block[1]) *
      resident_blocks;
  pr.held_line_share = c.held_line_share;
  pr.whole_lines_open_at_once = c.whole_lines_open_at_once_per_block * resident_blocks;
  pr.lone_sector_lines_open_at_once = c.lone_sector_lines_open_at_once_per_block * resident_blocks;
  pr.whole_sectors_held_over_rounds = c.whole_sectors_held_over_rounds;
  pr.lone_sectors_held_over_rounds = c.lone_sectors_held_over_rounds;
  pr.whole_line_rounds_apart = c.whole_line_rounds_apart;
  // Lines of whole sectors held open over rounds: the L2 evicts e of the counted sectors before their line is
  // whole, and writing them back costs DRAM time beyond their bytes (memsim-held-open's whole-sector runs).
  if (k.whole_lines_lines > 0 && k.whole_lines_ps_per_byte > 0) {
    const double u = k.whole_lines_lone_only ? pr.lone_sector_lines_open_at_once : pr.whole_lines_open_at_once;
    const double sectors = k.whole_lines_lone_only ? c.lone_sectors_held_over_rounds : c.whole_sectors_held_over_rounds;
    if (u > 0) {
      pr.whole_lines_evicted = 1 - std::exp(-std::pow(u / k.whole_lines_lines, k.whole_lines_exponent));
      pr.whole_lines_us = pr.whole_lines_evicted * sectors * p.sector_bytes * k.whole_lines_ps_per_byte * 1e-6;
    }
  }
  const bool held_open_costed = k.read_back_held_open_lines > 0;
  if (pr.held_line_share > 0 && held_open_costed) {
    pr.held_open_read_back = 1 - std::exp(-std::pow(pr.lines_open_at_once / k.read_back_held_open_lines,
                                                    k.read_back_held_open_exponent));
    // Past the L2's lines: once the lines held open at once outgrow the share of the L2's lines that holds them
    // (each counted whole, whatever its pieces), a piece after a sector's first finds its line evicted with the
    // chance that a line is not held, 1 - those lines / lines open (replacement as if at random), and the L2
    // reads the sector back once more: (pieces a sector - 1) x that chance, on top of the once above. The share
    // is fitted on memsim-held-open's runs past the L2 (lab/calibration/fit_past_l2.py), where the fit above
    // stops: they read back up to 3.5 times the output.
    pr.l2_lines = p.l2_bytes > 0 ? k.read_back_held_open_past_l2_share * double(p.l2_bytes) / double(p.line_bytes) : 0.0;
    pr.held_lines_open = (c.lines_open_at_once_per_block[0] + c.lines_open_at_once_per_block[1]) * resident_blocks;
    pr.pieces_per_held_sector = c.pieces_per_held_sector;
    if (pr.l2_lines > 0 && pr.held_lines_open > pr.l2_lines && c.pieces_per_held_sector > 1) {
      pr.past_l2_evicted = 1 - pr.l2_lines / pr.held_lines_open;
      pr.past_l2_read_back = (c.pieces_per_held_sector - 1) * pr.past_l2_evicted;
      pr.held_open_read_back += pr.past_l2_read_back;
    }
    pr.read_back_fraction =
        (1 - pr.held_line_share) * pr.read_back_fraction + pr.held_line_share * pr.held_open_read_back;
  }
  // Given the bytes the launch reads from DRAM (--dram-read-bytes), what lies beyond the loads' own bytes is the
  // read-back: it replaces the modelled fraction, spread over the partial stores' bytes the profile charges.
  const bool read_given = o.dram_read_bytes >= 0;
  const double read_beyond_loads = read_given ? std::max(0.0, o.dram_read_bytes - c.dram_read_bytes) : 0.0;
  // A byte read back costs by the piece it belongs to, not by its lanes: 4-byte lanes writing 16 bytes a sector
  // read back as 16-byte pieces of 8-byte lanes do (memsim-step-lines: u32 and u64 runs of 16-byte pieces alike,
  // 710 and 659 us at 64 warps an SM; charged at the 4-byte class's cost, the u32 runs came out 19% fast).
  const double half_of_lane4 = std::clamp(c.lane4_half_sector_bytes, 0.0, c.partial_store_bytes[kLanes4]);
  const double read_back_class_bytes[3] = {c.partial_store_bytes[kLanes4] - half_of_lane4, c.partial_store_bytes[kLanes8],
                                           c.partial_store_bytes[kLanes16] + half_of_lane4};
  if (read_given) {
    double charged_bytes = 0;
    bool partial = false;
    for (int w = 0; w < 3; ++w) {
      if (read_back_class_bytes[w] <= 0) continue;
      partial = true;
      if (k.read_back_ps_per_byte[w] > 0) charged_bytes += read_back_class_bytes[w];
    }
    pr.read_back_fraction = charged_bytes > 0 ? read_beyond_loads / charged_bytes : 0.0;
    if (partial && charged_bytes <= 0 && read_beyond_loads > 0)
      pr.caveats.push_back("the bytes given beyond the loads' own (--dram-read-bytes) are the read-back of this "
                           "kernel's partial stores, and this profile has no cost for that at their lane width: "
                           "the time above charges them on the DRAM term alone");
  }
  double read_back_bytes = 0;
  bool uncharged = false;
  for (int w = 0; w < 3; ++w) {
    if (read_back_class_bytes[w] <= 0 || pr.read_back_fraction <= 0) continue;
    if (k.read_back_ps_per_byte[w] <= 0) {
      uncharged = true;
      continue;
    }
    read_back_bytes += pr.read_back_fraction * read_back_class_bytes[w];
    pr.read_back_us += pr.read_back_fraction * read_back_class_bytes[w] * k.read_back_ps_per_byte[w] * 1e-6;
  }
  if (uncharged)
    pr.caveats.push_back("about " + std::to_string(int64_t(std::llround(pr.open_partial_lines))) +
                         " lines are partly written at once (" +
                         std::to_string(int64_t(std::llround(lines_per_block))) +
                         " a block): the L2 reads back part of such lines before it writes them, and this "
                         "profile has no cost for that at the lane width of this kernel's partial stores: the "
                         "time above leaves it out");

  // Where the held-open read-back is not known, or past the lines it was fitted on (beyond them the L2 evicts a
  // line more than once, and reads back more than the output: memsim-held-open's runs at 540,672 lines).
  pr.open_rounds = c.partial_line_open_rounds;
  if (pr.held_line_share > 0 && !held_open_costed && k.read_back_from_lines > 0) {
    pr.caveats.push_back("this kernel holds partly written lines open over rounds (a round: a warp's loads, then "
                         "its stores), and this profile has no read-back for such lines: the time above leaves it "
                         "out, and may be low");
  } else if (!read_given && pr.past_l2_read_back > 0) {
    pr.caveats.push_back(caveat_words(
        "about %.3g lines are held open over rounds at once, more than the %.3g of the L2's that hold them: memsim "
        "counts a piece after a sector's first as finding its line evicted %.0f%% of the time and the sector read "
        "back again (%.2f times the held lines' bytes in all), fitted on memsim-held-open's runs past the L2, whose "
        "read-back it gives within about 30%% (docs/model.md)",
        pr.held_lines_open, pr.l2_lines, 100 * pr.past_l2_evicted, pr.held_open_read_back));
  } else if (!read_given && pr.closed_at_risk > 0 && pr.held_line_share < 1 && rounds > kClosedStepsFitted) {
    pr.caveats.push_back(caveat_words(
        "a block writes its partly written lines over %.0f rounds, past the %.0f the read-back by the steps was "
        "measured at (memsim-step-lines): the share at risk is carried on as the log of the rounds there (%.2f of "
        "the bytes), which may run high",
        rounds, kClosedStepsFitted, pr.closed_at_risk));
  } else if (!read_given && pr.held_line_share > 0 && held_open_costed && pr.lines_open_at_once > kHeldOpenFittedLines) {
    pr.caveats.push_back(
        caveat_words("about %.3g lines are held open over rounds at once, past the %.3g the read-back of such "
                     "lines was measured up to: the L2 evicts them more than once there, and the time above may be "
                     "low",
                     pr.lines_open_at_once, kHeldOpenFittedLines));
  }

  // Bytes the resident blocks meet out of order cost DRAM time besides their share of the rate: the transposed
  // side of a transpose (sim/dram_order.hpp).
  pr.dram_order_counted = charges_dram_order(k);
  pr.dram_scattered[0] = c.dram_scattered[0], pr.dram_scattered[1] = c.dram_scattered[1];
  pr.dram_order_us = (c.dram_read_bytes * c.dram_scattered[0] * k.scattered_read_ps_per_byte +
                      c.dram_write_bytes * c.dram_scattered[1] * k.scattered_write_ps_per_byte) *
                     1e-6;
  pr.dram_read_bytes = read_given ? o.dram_read_bytes : c.dram_read_bytes + read_back_bytes;
  pr.dram_read_back_bytes = read_given ? read_beyond_loads : read_back_bytes;
  pr.dram_write_bytes = c.dram_write_bytes;
  pr.dram_read_basis = read_given ? kDramReadGiven : kDramReadModelled;
  const double dram = (pr.dram_read_bytes + pr.dram_write_bytes) / (k.dram_gbs * 1e3) *
                          std::max(1.0, o.partition_imbalance) +
                      pr.dram_order_us + pr.whole_lines_us;
  const double l2 = (c.l2_load_sectors + c.l2_store_sectors) * k.l2_sector_ps * 1e-6;
  pr.l2_read_requests = c.l2_read_requests, pr.l2_load_sectors = c.l2_load_sectors;
  pr.l2_hit_load_share = c.l2_hit_load_share;
  double partial = pr.read_back_us;
  for (int w = 0; w < 3; ++w) partial += c.partial_store_requests[w] * k.partial_store_ps[w] * 1e-6;
  // A sector whose parts come from two blocks costs more than one a block completes itself.
  pr.split_sectors = c.split_sectors;
  pr.split_line_whole_share = c.split_line_whole_share;
  pr.split_log2_distance = c.split_log2_distance;
  pr.split_sectors_us =
      c.split_sectors * k.split_sector_ps * (1 + k.split_sector_per_log2_distance * c.split_log2_distance) * 1e-6;
  partial += pr.split_sectors_us;
  // Lines holding such sectors cost more where the resident blocks meet their stores out of order (a transpose's
  // split sectors, their other writer a grid row later and a tile row away) than along the rows (a copy's).
  pr.split_lines = c.split_lines;
  pr.split_lines_scattered_us = c.split_lines * c.dram_scattered[1] * k.split_line_scattered_ps * 1e-6;
  partial += pr.split_lines_scattered_us;
  // A sector whose pieces come from several warps of its block waits in the L2 for the last of them.
  // Less where the block writes the sector's whole line in one round (the warps' same step: the L2 has every piece
  // of the line within a few requests of the first) than where the line waits a load's round trip or more.
  pr.sectors_from_warps = c.sectors_from_warps;
  pr.sectors_from_warps_in_one_round = c.sectors_from_warps_in_one_round;
  pr.sectors_from_warps_us = ((c.sectors_from_warps - c.sectors_from_warps_in_one_round) * k.sector_from_warps_ps +
                              c.sectors_from_warps_in_one_round * k.sector_from_warps_one_round_ps) *
                             1e-6;
  partial += pr.sectors_from_warps_us;
  const double writes = c.l2_write_slots * k.l2_write_slot_ps * 1e-6;
  const double l1 = (c.l1_global_wavefronts + c.shared_wavefronts) * per_sm * k.l1_cycles_per_wavefront / clock_hz * 1e6;
  double instructions = c.memory_instructions * k.instructions_per_memory_op;
  pr.instructions_basis = kBasisMemoryRatio;
  if (o.instructions > 0) {
    instructions = o.instructions, pr.instructions_basis = kBasisGiven;
  } else if (c.instructions > 0) {
    instructions = c.instructions, pr.instructions_basis = kBasisCounted;
  } else if (c.sass_instructions > 0) {
    instructions = c.sass_instructions;
    pr.instructions_basis = std::string(c.code_basis == CodeBasis::Estimated ? kBasisCodeEstimate : kBasisSass) +
                            " (" + c.code_source + ")";
  } else if (c.source_operations > 0 && k.instructions_per_source_op > 0) {
    instructions = k.instructions_per_warp * c.warps() + k.instructions_per_source_op * c.source_operations +
                   k.instructions_per_division[0] * c.runtime_divisions[0] +
                   k.instructions_per_division[1] * c.runtime_divisions[1];
    pr.instructions_basis = kBasisOperations;
  }
  pr.instructions = instructions;
  const double issue = instructions * per_sm / (k.issue_per_cycle * clock_hz) * 1e6;

  // Little's law in rounds: every warp waits out its chain of dependent loads; SMs x resident warps wait
  // at once, so the launch takes (warps / concurrent warps) chains. A round trip is longer by l2_request_ns
  // for each L2 read request a load sends beyond one (a load is back when its last request is). A load whose
  // sectors the L2 holds from the warp's earlier requests comes back in l2_hit_latency_us instead, its
  // requests and all (what l2_request_ns prices is the wait for DRAM: measured on loads that miss).
  double latency = 0;
  const double warps = c.warps();
  if (warps > 0 && c.global_load_instructions > 0) {
    const double chain = std::ceil(c.global_load_instructions / warps / std::max(1.0, c.loads_in_flight_per_warp));
    const double concurrent = std::max(1.0, sms * pr.occupancy.resident_warps());
    const double extra_requests = std::max(0.0, c.l2_read_requests / c.global_load_instructions - 1.0);
    const double hit_share = k.l2_hit_latency_us > 0 ? std::clamp(c.l2_hit_load_share, 0.0, 1.0) : 0.0;
    const double from_dram = k.latency_us + k.l2_request_ns * 1e-3 * extra_requests;
    const double round_trip = (1 - hit_share) * from_dram + hit_share * k.l2_hit_latency_us;
    latency = round_trip * chain * std::max(1.0, warps / concurrent);
  }

  // The L1 left beside shared memory holds the loads in flight: a load request allocates each line it touches
  // until its data is back, l1_line_hold_us under load, so an SM's free lines bound the rate of its line
  // requests. Tiles that fill the largest carve-out leave 28 KiB of L1 (224 lines) on sm_90, and a request whose
  // pieces cut lines holds more lines for the same bytes (lab/studies/cut_lines).
  double l1_lines = 0;
  const double free_lines = double(pr.occupancy.l1_bytes) / p.line_bytes;
  if (k.l1_line_hold_us > 0 && free_lines > 0 && c.global_load_lines > 0)
    l1_lines = c.global_load_lines * k.l1_line_hold_us / (sms * free_lines);

  // Every block holds its slot for block_us besides its loads, and until its slowest warp's loads are back (the
  // more warps, the later the last one); SMs x resident blocks do so at once.
  double block = 0;
  // The wait for a block's last warp is a share of a round trip: none where the block loads nothing.
  const double drain = c.global_load_instructions > 0 && c.warps_per_block() > 1
                           ? k.block_drain_rounds * k.latency_us * std::log2(double(c.warps_per_block()))
                           : 0.0;
  // A block's own shared-memory wavefronts lie on its path between its loads and its exit (stores to the tile
  // after its loads, loads of it after the barrier): its slot is held at least while the pipe serves them. Over
  // the launch this adds the shared-memory part of the L1 term over the blocks an SM, so it matters where few
  // blocks of many warps hold an SM (held-out sets m and n, lab/heldout/README.md).
  const double own_shared =
      c.blocks > 0 ? c.shared_wavefronts / double(c.blocks) * k.l1_cycles_per_wavefront / clock_hz * 1e6 : 0.0;
  const double block_hold = k.block_us + k.barrier_us * c.barriers_per_block + drain + own_shared;
  if (c.blocks > 0 && block_hold > 0) {
    const double slots = std::max(1.0, sms * double(pr.occupancy.blocks_per_sm));
    block = block_hold * std::max(1.0, double(c.blocks) / slots);
  }

  // The GPU starts blocks at a fixed rate: a floor under everything the blocks do.
  const double launches = double(c.blocks) * k.block_launch_ns * 1e-3;

  pr.terms_us = {{kTermDram, dram},   {kTermL2, l2},           {kTermPartial, partial}, {kTermWrites, writes},
                 {kTermL1, l1},       {kTermL1Lines, l1_lines}, {kTermIssue, issue},   {kTermLatency, latency},
                 {kTermBlock, block}, {kTermBlockLaunch, launches}};
  // Instruction issue overlaps the memory terms the way they overlap each other: one more p-norm term; latency
  // and block scheduling are two parts of one residency: they add, then overlap the others. The L2 finishes
  // partly written sectors while the warps wait out their loads: the partial stores and the residency overlap
  // fully (the larger of the two enters the p-norm). Fitted with an exponent of its own, that overlap runs to
  // infinity on the microbenchmarks (docs/history/model_notebook.md, "Partial stores beside waiting warps").
  std::vector<double> overlapped;
  double largest = 0;
  std::string top = kTermLaunch;
  for (const auto& [name, t] : pr.terms_us) {
    if (name == kTermLatency || name == kTermBlock || name == kTermBlockLaunch || name == kTermPartial) continue;
    overlapped.push_back(t);
    if (t > largest) largest = t, top = name;
  }
  const double residency = latency + block;
  const double residency_or_partial = std::max(residency, partial);
  overlapped.push_back(residency_or_partial);
  if (residency_or_partial > largest) {
    largest = residency_or_partial;
    top = partial > residency ? kTermPartial : latency >= block ? kTermLatency : kTermBlock;
  }
  // The p-norm over the terms scaled by the largest: t^p itself overflows a double for large terms or p.
  double sum = 0;
  if (largest > 0)
    for (double t : overlapped) sum += std::pow(t / largest, k.overlap_p);
  double body = largest * std::pow(sum, 1.0 / k.overlap_p);  // at least the largest term, issue included
  if (launches > body) body = launches, largest = launches, top = kTermBlockLaunch;
  // Loads with one in flight a warp, and the lines a request of them spreads over: two caveats below read them.
  const bool one_load_in_flight = c.global_load_instructions > 0 && c.loads_in_flight_per_warp < 2;
  const double lines_per_load = one_load_in_flight ? c.global_load_lines / c.global_load_instructions : 0;
  // Where the fixed latency is known to fall short (model/profile.hpp, long_wait_lines): an L1-bound kernel
  // waits in L1's queue anyway, and with several loads in flight a warp the waits overlap.
  if (k.long_wait_lines > 0 && top != kTermL1 && one_load_in_flight && lines_per_load >= k.long_wait_lines)
    pr.caveats.push_back(with_evidence(
        caveat_words("a load request spreads over %.3g lines (from %.3g on) with one load in flight a warp: such "
                     "loads wait longer than the %.2f us a round trip the latency term charges, so the time above "
                     "is likely low",
                     lines_per_load, k.long_wait_lines, k.latency_us),
        k.long_wait_evidence));
  // Where the latency and the partial-store terms are known to fall short together (model/profile.hpp,
  // half_sector_wait_lines): loads over several lines, one in flight a warp, beside half-sector pieces that other
  // warps of the block complete. With two loads in flight or more, or loads of one line, the same stores are
  // predicted within 9% (lab/studies/loaded_latency).
  const double partial_bytes = c.partial_bytes();
  const double lines_from_warps = total_lines(c.partial_lines_per_block) + c.lines_open_at_once_per_block[0] +
                                  c.lines_open_at_once_per_block[1];
  if (k.half_sector_wait_lines > 0 && one_load_in_flight && lines_per_load >= k.half_sector_wait_lines &&
      partial_bytes > 0 && c.half_sector_piece_bytes >= 0.5 * partial_bytes && lines_from_warps > 0)
    pr.caveats.push_back(with_evidence(
        caveat_words("a load request spreads over %.3g lines (from %.3g on) with one load in flight a warp, beside "
                     "stores that write sectors in half-sector pieces other warps complete: such kernels wait "
                     "longer than the latency and partial-store terms charge, so the time above is likely low",
                     lines_per_load, k.half_sector_wait_lines),
        k.half_sector_wait_evidence));
  // Where the split-sector cost is known to fall short (model/profile.hpp, split_line_whole_share): lines
  // holding split sectors beside whole ones, from lanes of 4 bytes or more (what memsim-split-lines measured).
  if (k.split_line_whole_share > 0 && c.split_sectors > 0 && c.split_lane_bytes >= 4 &&
      c.split_line_whole_share >= k.split_line_whole_share)
    pr.caveats.push_back(with_evidence(
        caveat_words("the lines holding sectors split between two blocks hold whole ones too (%.3g%% of a block's "
                     "sectors there, from %.3g%% on): such a line costs about as much as one whose every sector is "
                     "split, which the split-sector cost was fitted on, and is charged for its split sectors alone, "
                     "so the time above is likely low",
                     100 * c.split_line_whole_share, 100 * k.split_line_whole_share),
        k.split_line_whole_evidence));
  // Where the L1 left beside shared memory is known to hold too few loads in flight (model/profile.hpp,
  // small_l1_kib): a launch that stages through shared memory at the largest carve-out, in a profile that does not
  // charge the L1's lines itself.
  if (k.small_l1_kib > 0 && k.l1_line_hold_us == 0 && c.shared_bytes_per_block > 0 &&
      c.global_load_instructions > 0 && pr.occupancy.l1_bytes > 0 &&
      double(pr.occupancy.l1_bytes) <= k.small_l1_kib * 1024)
    pr.caveats.push_back(with_evidence(
        caveat_words("the blocks' shared memory leaves %.3g KiB of L1 an SM (up to %.3g KiB) for the loads in "
                     "flight: staged copies with so little L1 ran longer than the terms charge, so the time above "
                     "is likely low",
                     double(pr.occupancy.l1_bytes) / 1024, k.small_l1_kib),
        k.small_l1_evidence));
  // Where the partial-store cost is known high (model/profile.hpp, narrow_lane_piece_share): pieces of 8 bytes a
  // sector or more from 2-byte lanes, each priced as its own write, which the L1 merges more often than the
  // pieces the class was fitted on. Not where the L2's writes were given: the merged pieces are charged whole then.
  if (k.narrow_lane_piece_share > 0 && partial_bytes > 0 && c.l2_write_sectors_given < 0 &&
      pr.next_store_merged_share <= 0 &&
      c.narrow_lane_piece_bytes >= k.narrow_lane_piece_share * partial_bytes) {
    pr.caveats.push_back(with_evidence(
        caveat_words("%.3g%% of the partial stores' bytes come from lanes of 2 bytes writing 8 bytes of a sector or "
                     "more (from %.3g%% on): each piece is priced as a write of its own, and the L1 merges many such "
                     "pieces of a sector before the L2, so the time above is likely high",
                     100 * c.narrow_lane_piece_bytes / partial_bytes, 100 * k.narrow_lane_piece_share),
        k.narrow_lane_piece_evidence));
    ++pr.caveats_time_high;
  }
  // Where the partial-store costs are known to fall short (model/profile.hpp, store_burst_stores).
  if (k.store_burst_stores > 0 && c.lines_completed_by_one_warp_per_block > 0 && warps > 0 &&
      c.global_store_instructions / warps >= k.store_burst_stores)
    pr.caveats.push_back(with_evidence(
        caveat_words("each warp writes sectors in parts and completes them itself, in %.3g store instructions "
                     "(from %.3g on): the L1 merges few such parts into whole sectors, fewer than in the benchmarks "
                     "the partial-store costs were fitted on, so the time above is likely low",
                     c.global_store_instructions / warps, k.store_burst_stores),
        k.store_burst_evidence));
  pr.terms_us.emplace_back(kTermLaunch, k.launch_us);
  pr.time_us = body + k.launch_us;
  const bool launch_bound = k.launch_us > body;
  pr.bottleneck = launch_bound ? std::string(kTermLaunch) : name_bottleneck(top, c);
  pr.bottleneck_us = launch_bound ? k.launch_us : largest;
  // Latency or block scheduling names the residency, whose time is both: say the other part where it is not 0.
  if (!launch_bound && (top == kTermLatency || top == kTermBlock) && latency > 0 && block > 0)
    pr.bottleneck_with = top == kTermLatency ? kTermBlock : kTermLatency;
  pr.effective_bandwidth_gbs = pr.time_us > 0 ? c.useful_bytes / (pr.time_us * 1e3) : 0.0;
  return pr;
}

std::string sass_arch(const std::string& cc) {
  const size_t dot = cc.find('.');
  if (dot == std::string::npos || dot == 0) return {};
  const std::string major = cc.substr(0, dot), minor = cc.substr(dot + 1);
  if (major.find_first_not_of("0123456789") != std::string::npos || minor.empty() ||
      minor.find_first_not_of("0123456789") != std::string::npos || std::stoi(major) < 7)
    return {};
  return major + minor;
}

nlohmann::ordered_json to_json(const Prediction& p, const DeviceProfile* profile) {
  nlohmann::ordered_json j;
  j["device"] = p.device;
  j["time_us"] = p.time_us;
  j["effective_bandwidth_gbs"] = p.effective_bandwidth_gbs;
  if (p.fraction_of_copy) j["fraction_of_copy"] = *p.fraction_of_copy;
  j["bottleneck"] = p.bottleneck;
  j["bottleneck_us"] = p.bottleneck_us;
  j["bottleneck_share"] = p.bottleneck_share();
  if (!p.bottleneck_with.empty()) j["bottleneck_with"] = p.bottleneck_with;
  nlohmann::ordered_json terms = nlohmann::ordered_json::object();
  for (const auto& [name, t] : p.terms_us) terms[name] = t;
  j["terms_us"] = terms;
  j["occupancy"] = {{"blocks_per_sm", p.occupancy.blocks_per_sm},
                    {"warps_per_sm", p.occupancy.resident_warps()},
                    {"limiter", p.occupancy.limiter}};
  // The registers a thread it was worked out with, and where they come from where the caller says.
  if (p.occupancy.regs_per_thread > 0) j["occupancy"]["registers_per_thread"] = p.occupancy.regs_per_thread;
  if (!p.occupancy.registers_basis.empty()) j["occupancy"]["registers_basis"] = p.occupancy.registers_basis;
  // The split of L1 and shared memory, where the profile knows it (model/occupancy.hpp).
  if (p.occupancy.shared_carveout > 0 || p.occupancy.l1_bytes > 0) {
    j["occupancy"]["shared_carveout_bytes"] = p.occupancy.shared_carveout;
    j["occupancy"]["l1_bytes"] = p.occupancy.l1_bytes;
  }
  j["waves"] = p.waves;
  j["instructions"] = p.instructions;
  j["instructions_basis"] = p.instructions_basis;
  j["open_partial_lines"] = p.open_partial_lines;
  j["read_back_warp_factor"] = p.read_back_warp_factor;
  j["read_back_fraction"] = p.read_back_fraction;
  j["closed_by_lines"] = p.closed_by_lines;
  j["closed_warp_factor"] = p.closed_warp_factor;
  j["closed_lines_a_warp"] = p.closed_lines_a_warp;
  j["closed_warps_per_sm"] = p.closed_warps_per_sm;
  j["closed_at_risk"] = p.closed_at_risk;
  j["closed_evicted"] = p.closed_evicted;
  j["read_back_us"] = p.read_back_us;
  j["partial_line_open_rounds"] = p.open_rounds;
  j["closed_line_rounds"] = p.closed_line_rounds;
  j["closed_line_rounds_open"] = p.closed_line_rounds_open;
  j["lines_open_at_once"] = p.lines_open_at_once;
  j["held_line_share"] = p.held_line_share;
  j["held_open_read_back"] = p.held_open_read_back;
  j["held_lines_open"] = p.held_lines_open;
  j["l2_lines"] = p.l2_lines;
  j["past_l2_evicted"] = p.past_l2_evicted;
  j["past_l2_read_back"] = p.past_l2_read_back;
  j["pieces_per_held_sector"] = p.pieces_per_held_sector;
  j["whole_lines_open_at_once"] = p.whole_lines_open_at_once;
  j["lone_sector_lines_open_at_once"] = p.lone_sector_lines_open_at_once;
  j["whole_sectors_held_over_rounds"] = p.whole_sectors_held_over_rounds;
  j["lone_sectors_held_over_rounds"] = p.lone_sectors_held_over_rounds;
  j["whole_line_rounds_apart"] = p.whole_line_rounds_apart;
  j["whole_lines_evicted"] = p.whole_lines_evicted;
  j["whole_lines_us"] = p.whole_lines_us;
  j["dram_bytes"] = {{"read", p.dram_read_bytes},
                     {"read_back", p.dram_read_back_bytes},
                     {"written", p.dram_write_bytes},
                     {"read_basis", p.dram_read_basis}};
  j["split_sectors"] = p.split_sectors;
  j["split_sectors_us"] = p.split_sectors_us;
  j["split_lines"] = p.split_lines;
  j["split_lines_scattered_us"] = p.split_lines_scattered_us;
  j["sectors_from_warps"] = p.sectors_from_warps;
  j["sectors_from_warps_in_one_round"] = p.sectors_from_warps_in_one_round;
  j["sectors_from_warps_us"] = p.sectors_from_warps_us;
  j["partial_store_sectors"] = p.partial_store_sectors;
  j["next_store_pair_share"] = p.next_store_pair_share;
  j["next_store_merged_share"] = p.next_store_merged_share;
  if (p.given_merged_piece_share >= 0) j["given_merged_piece_share"] = p.given_merged_piece_share;
  if (p.split_sectors > 0) {
    j["split_blocks_apart"] = std::exp2(p.split_log2_distance);
    j["split_line_whole_share"] = p.split_line_whole_share;
  }
  if (p.l2_read_requests > 0)
    j["l2_read_requests"] = {{"requests", p.l2_read_requests},
                             {"sectors", p.l2_load_sectors},
                             {"l2_hit_load_share", p.l2_hit_load_share}};
  if (p.dram_order_counted)
    j["dram_order"] = {{"scattered_loads", p.dram_scattered[0]},
                       {"scattered_stores", p.dram_scattered[1]},
                       {"time_us", p.dram_order_us}};
  j["caveats"] = p.caveats;
  if (p.caveats_time_high > 0) j["caveats_time_high"] = p.caveats_time_high;
  if (profile) {
    j["calibrated"] = profile->calibrated;
    // The shipped profiles' notes open with "assumed:" themselves; say it once.
    const std::string& note = profile->partitions.note;
    if (profile->partitions.assumed)
      j["partition_mapping"] = note.rfind("assumed", 0) == 0 ? note : "assumed: " + note;
  }
  return j;
}

}  // namespace memsim
