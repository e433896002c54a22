"""The bank map of one shared-memory warp instruction and the suite's sector map, from memsim's JSON.

  bank map:    `memsim --plot banks` (its "bank_map": block 0's shared instructions lane by lane, as the replay
               recorded them, with the bank rule's words per bank and wavefronts per phase). Rows = lanes,
               columns = banks; a cell holds the word the lane reads or writes in that bank, coloured by how
               many distinct words its bank delivers in the lane's phase: green 1 (conflict-free), orange to
               dark red 2 and more (a conflict), white no access. A strip below gives each bank's words per
               phase (a grey dot: the bank is idle); the panel on the right, every instruction of the site in
               block 0 with its wavefronts, the one drawn marked.
  sector map:  `memsim --plot sectors` (the suite's reports, global sites only) or memsim --format json
               reports. Rows = kernels, columns = their global access sites in source order; a cell holds
               "sectors / ideal sectors per request", coloured by their ratio (the wasted traffic): pale for
               1, dark red for 8 and more.
"""
import os
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np

from plot_common import InputError, Malformed, config_text, device_of, is_number, plain

BANK_MAP_SIZE = (13.0, 9.0)  # inches
SECTOR_MAP_SIZE = (12.0, 8.0)


def _list(v, where):
    if not isinstance(v, list):
        raise Malformed(f"{where} is not a list")
    return v


def _obj(v, where):
    if not isinstance(v, dict):
        raise Malformed(f"{where} is not an object")
    return v


def _num(obj, key, where):
    if key not in obj:
        raise Malformed(f"{where} has no '{key}'")
    if not is_number(obj[key]):
        raise Malformed(f"{where}.{key} is not a number")
    return obj[key]


def _objects(parent, key, where, numbers=(), optional=False):
    """(path, object) for each entry of the list parent[key], each an object with the given number fields;
    with optional, null entries are skipped."""
    for i, v in enumerate(_list(parent.get(key), f"{where}.{key}")):
        w = f"{where}.{key}[{i}]"
        if v is None and optional:
            continue
        _obj(v, w)
        for n in numbers:
            _num(v, n, w)
        yield w, v


def check_bank_map(doc, name):
    """The sites of doc["bank_map"], checked; InputError naming the field otherwise."""
    if not isinstance(doc, dict) or "bank_map" not in doc:
        raise InputError(f"{name} has no 'bank_map': memsim --plot banks --plot-out FILE.json writes one")
    try:
        bm = _obj(doc["bank_map"], "bank_map")
        rules = _obj(bm.get("rules"), "bank_map.rules")
        banks = _num(rules, "banks", "bank_map.rules")
        if not isinstance(banks, int) or not 1 <= banks <= 64:
            raise Malformed("bank_map.rules.banks is not a bank count from 1 to 64")
        for w, s in _objects(bm, "sites", "bank_map"):
            if not isinstance(s.get("name"), str):
                raise Malformed(f"{w}.name is not a string")
            for wi, ins in _objects(s, "instructions", w, ("warp", "wavefronts", "ideal_wavefronts")):
                for wl, lane in _objects(ins, "lanes", wi, optional=True):
                    words, bks = _list(lane.get("words"), f"{wl}.words"), _list(lane.get("banks"), f"{wl}.banks")
                    if len(words) != len(bks) or not all(isinstance(b, int) and 0 <= b < banks for b in bks):
                        raise Malformed(f"{wl}: banks are not one bank number below {banks} per word")
                for wp, ph in _objects(ins, "phases", wi, ("first_lane", "lanes", "wavefronts")):
                    bw = _list(ph.get("bank_words"), f"{wp}.bank_words")
                    if len(bw) != banks or not all(is_number(v) and v >= 0 for v in bw):
                        raise Malformed(f"{wp}.bank_words is not {banks} counts")
    except Malformed as e:
        raise InputError(f"{name} is not a well-formed memsim bank map: {e}")
    return bm


def conflicts_of(site):
    """The most bank conflicts one warp instruction of the site takes in block 0 (wavefronts over the ideal)."""
    return max((i["wavefronts"] - i["ideal_wavefronts"] for i in site["instructions"]), default=-1)


def lane_spread(site):
    """How far apart consecutive active lanes' addresses lie in the site's worst instruction, on average (bytes):
    a tile's column read spreads its lanes a row apart, the access a pad or a swizzle exists for."""
    ins = site["instructions"]
    if not ins:
        return 0
    worst = max(ins, key=lambda i: i["wavefronts"])
    addr = [lane["address"] for lane in worst["lanes"] if isinstance(lane, dict) and is_number(lane.get("address"))]
    gaps = [abs(b - a) for a, b in zip(addr, addr[1:])]
    return sum(gaps) / len(gaps) if gaps else 0


def pick_site(bm, site):
    sites = bm["sites"]
    names = ", ".join(f"{s.get('site', i)} '{s['name']}'" for i, s in enumerate(sites))
    if not sites:
        raise InputError("the bank map holds no shared site")
    if site is None:
        # The most conflicts an instruction takes; among equals (a conflict-free kernel), the site whose lanes lie
        # furthest apart: padded's and swizzle's column read 'ld tile', the access coalesced conflicts at, rather
        # than the row store every tile kernel does alike. The first such site of equals.
        best = max(range(len(sites)), key=lambda i: (conflicts_of(sites[i]), lane_spread(sites[i]), -i))
        return sites[best], True
    for s in sites:
        if site == s["name"] or site == str(s.get("site")):
            return s, False
    raise InputError(f"unknown {option('site')} '{site}': the shared sites are {names}")


def option(name):
    """An option's name as the user typed it: memsim's --plot-site / --plot-instruction when memsim runs this
    script (it says so in MEMSIM_PLOT_CALLER), the script's own --site / --instruction otherwise."""
    return "--plot-" + name if os.environ.get("MEMSIM_PLOT_CALLER") == "memsim" else "--" + name


def pick_instruction(site, index):
    ins = site["instructions"]
    if not ins:
        raise InputError(f"site '{site['name']}' has no warp instruction in block 0")
    if index is None:
        worst = max(i["wavefronts"] for i in ins)
        return next(k for k, i in enumerate(ins) if i["wavefronts"] == worst), True
    if not 0 <= index < len(ins):
        raise InputError(f"{option('instruction')} {index} is out of range: site '{site['name']}' has {len(ins)} warp "
                         f"instructions in block 0 (0 to {len(ins) - 1})")
    return index, False


def bank_cmap(top):
    """0: white (no access), 1: green (conflict-free), 2..top: orange to dark red (conflicts)."""
    reds = plt.get_cmap("YlOrRd")
    n = max(top, 2)
    colours = ["#ffffff", "#7fc97f"] + [reds(0.35 + 0.65 * (k - 2) / max(1, n - 2)) for k in range(2, n + 1)]
    return mcolors.ListedColormap(colours), mcolors.BoundaryNorm(np.arange(-0.5, n + 1.5), len(colours))


def bank_cells(ins, banks):
    """(value, text): per lane and bank, the distinct words the bank delivers in the lane's phase, and the word."""
    lanes = ins["lanes"]
    value = np.zeros((len(lanes), banks))
    text = {}
    for lane, rec in enumerate(lanes):
        if rec is None:
            continue
        phase = next((p for p in ins["phases"] if p["first_lane"] <= lane < p["first_lane"] + p["lanes"]), None)
        for word, bank in zip(rec["words"], rec["banks"]):
            value[lane, bank] = phase["bank_words"][bank] if phase else 1
            text[(lane, bank)] = str(word)
    return value, text


def top_words(ins, value):
    """The largest count the instruction's picture holds: its colour scale's top (at least 2)."""
    return int(max(2, value.max(), max((max(p["bank_words"]) for p in ins["phases"]), default=0)))


def draw_lanes(ax, ins, value, text, banks, top, cmap, norm, bank_bytes, ylabel=True):
    nl = len(ins["lanes"])
    ax.imshow(value, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    for (lane, bank), t in text.items():
        dark = value[lane, bank] >= max(3, 0.6 * top)
        ax.text(bank, lane, t, ha="center", va="center", fontsize=4.5 if len(t) > 3 else 5.5,
                color="white" if dark else "black")
    ax.set_xticks(range(banks))
    ax.set_xticklabels([str(b) for b in range(banks)], fontsize=6)
    ax.set_yticks(range(nl))
    ax.set_yticklabels([str(i) if rec is not None else f"{i} off" for i, rec in enumerate(ins["lanes"])], fontsize=6)
    ax.set_xticks(np.arange(-0.5, banks), minor=True)
    ax.set_yticks(np.arange(-0.5, nl), minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.4)
    ax.tick_params(which="minor", length=0)
    for p in ins["phases"][1:]:
        ax.axhline(p["first_lane"] - 0.5, color="black", linewidth=1.2)
    if ylabel:
        ax.set_ylabel("lane of the warp (a line between phases)", fontsize=8)
    ax.set_xlabel(f"bank ({bank_bytes}-byte banks); cell: the word (in {bank_bytes}-byte words of the block's "
                  "shared memory) the lane accesses", fontsize=7)


def draw_strip(strip, ins, banks, top, cmap, norm):
    rows = [p["bank_words"] for p in ins["phases"]] or [[0] * banks]
    strip.imshow(np.array(rows, dtype=float), cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    for r, row in enumerate(rows):
        for b, v in enumerate(row):
            strip.text(b, r, str(int(v)) if v else "·", ha="center", va="center", fontsize=6,
                       color="#999999" if not v else ("white" if v >= max(3, 0.6 * top) else "black"))
    strip.set_yticks(range(len(rows)))
    strip.set_yticklabels([f"phase {i}: {p['wavefronts']} wf" for i, p in enumerate(ins["phases"])], fontsize=6)
    strip.set_xticks(range(banks))
    strip.set_xticklabels([str(b) for b in range(banks)], fontsize=6)
    strip.set_xlabel("bank: distinct words it delivers in the phase (· idle, 1 conflict-free, more = that many "
                     "wavefronts)", fontsize=7)


def verdict_of(ins):
    conflicts = ins["wavefronts"] - ins["ideal_wavefronts"]
    return "conflict-free" if conflicts <= 0 else f"{conflicts} bank conflict{'s' if conflicts != 1 else ''}"


def picked(doc, name, site_arg, instruction_arg):
    """(bank map, site, site by default, instruction index, instruction by default) of one document."""
    bm = check_bank_map(doc, name)
    site, site_default = pick_site(bm, site_arg)
    k, ins_default = pick_instruction(site, instruction_arg)
    return bm, site, site_default, k, ins_default


def draw_bank_map(doc, name, out, dpi, site_arg=None, instruction_arg=None):
    bm, site, site_default, k, ins_default = picked(doc, name, site_arg, instruction_arg)
    ins = site["instructions"][k]
    banks = bm["rules"]["banks"]
    value, text = bank_cells(ins, banks)
    top = top_words(ins, value)
    cmap, norm = bank_cmap(top)

    fig = plt.figure(figsize=BANK_MAP_SIZE, layout="constrained")
    nph = max(1, len(ins["phases"]))
    grid = fig.add_gridspec(2, 2, width_ratios=[5, 1], height_ratios=[len(ins["lanes"]), 1.6 * nph + 1.5])
    draw_lanes(fig.add_subplot(grid[0, 0]), ins, value, text, banks, top, cmap, norm,
               bm["rules"].get("bank_bytes", 4))
    draw_strip(fig.add_subplot(grid[1, 0]), ins, banks, top, cmap, norm)

    side = fig.add_subplot(grid[:, 1])
    wf = [i["wavefronts"] for i in site["instructions"]]
    colours = ["#d62728" if i == k else "#9ecae1" for i in range(len(wf))]
    side.barh(range(len(wf)), wf, color=colours, height=0.8)
    side.axvline(ins["ideal_wavefronts"], color="black", linestyle=":", linewidth=1)
    side.invert_yaxis()
    side.set_xlabel("wavefronts (dotted: ideal)", fontsize=7)
    side.set_ylabel(f"warp instruction of block 0 at this site ({len(wf)}, launch order)", fontsize=7)
    side.tick_params(labelsize=6)
    side.set_title(f"drawn: #{k} (red)", fontsize=7)

    kernel = doc.get("kernel", "")
    which = "the worst" if ins_default else "chosen"
    fig.suptitle(plain(
        f"Shared-memory bank map: {kernel}, site '{site['name']}' {site.get('expr', '')}"
        f"{' (the most conflicted site)' if site_default else ''}\nblock 0, warp {ins['warp']}, instruction {k} of "
        f"{len(wf)} ({which}): {ins['wavefronts']} wavefronts, ideal {ins['ideal_wavefronts']}: {verdict_of(ins)}\n"
        f"{device_of(doc)}, {config_text(doc.get('config'))}"), fontsize=9)
    return fig


def bank_maps_size(n):
    """Several bank maps side by side (inches): a column of lanes x banks a launch."""
    return (6.5 * n + 1.0, 9.0)


def launch_labels(docs):
    """A label per document: its kernel, with the device where the documents' devices differ."""
    devices = {device_of(d) for _, d in docs}
    labels = []
    for name, d in docs:
        label = d.get("kernel") if isinstance(d, dict) and isinstance(d.get("kernel"), str) else name
        labels.append(label + (f" on {device_of(d)}" if len(devices) > 1 else ""))
    return labels


def draw_bank_maps(docs, dpi, site_arg=None, instruction_arg=None):
    """Several launches' bank maps side by side on one colour scale: the same colour is the same count of words a
    bank delivers in every panel. docs: [(name, document)]; each panel is its own site's worst instruction (or the
    --site / --instruction given, which every launch must have)."""
    panels = []
    for name, doc in docs:
        bm, site, site_default, k, _ = picked(doc, name, site_arg, instruction_arg)
        ins = site["instructions"][k]
        value, text = bank_cells(ins, bm["rules"]["banks"])
        panels.append((bm, site, k, ins, value, text))
    top = max(top_words(p[3], p[4]) for p in panels)
    cmap, norm = bank_cmap(top)
    fig = plt.figure(figsize=bank_maps_size(len(panels)), layout="constrained")
    nph = max(max(1, len(p[3]["phases"])) for p in panels)
    nl = max(len(p[3]["lanes"]) for p in panels)
    grid = fig.add_gridspec(2, len(panels), height_ratios=[nl, 1.6 * nph + 1.5])
    for c, ((bm, site, k, ins, value, text), label) in enumerate(zip(panels, launch_labels(docs))):
        banks = bm["rules"]["banks"]
        ax = fig.add_subplot(grid[0, c])
        draw_lanes(ax, ins, value, text, banks, top, cmap, norm, bm["rules"].get("bank_bytes", 4), ylabel=c == 0)
        ax.set_title(plain(f"{label}: '{site['name']}' {site.get('expr', '')}\nwarp {ins['warp']}, instruction {k} "
                           f"of {len(site['instructions'])}: {ins['wavefronts']} wavefronts, ideal "
                           f"{ins['ideal_wavefronts']}: {verdict_of(ins)}"), fontsize=8)
        draw_strip(fig.add_subplot(grid[1, c]), ins, banks, top, cmap, norm)
    first = docs[0][1]
    devices = sorted({device_of(d) for _, d in docs})
    fig.suptitle(plain(
        "Shared-memory bank maps side by side, one colour scale (green 1 word a bank: conflict-free; orange to dark "
        f"red: 2 to {top} words, that many wavefronts)\neach: its most conflicted site's worst warp instruction of "
        f"block 0 unless --site/--instruction name one\n{' / '.join(devices)}, "
        f"{config_text(first.get('config')).split(', tile')[0]}"),
        fontsize=9)
    return fig


def sector_rows(docs):
    """[(kernel, config, device, [(site name, sectors/request, ideal/request)])] from memsim reports or
    `memsim --plot sectors` documents; also the highlighted kernel and the skipped ones."""
    rows, skipped, highlight = [], [], None
    for name, doc in docs:
        if not isinstance(doc, dict):
            raise InputError(f"{name} is not a memsim report or sector document")
        try:
            if "reports" in doc:
                reports = _list(doc["reports"], "reports")
                for s in _list(doc.get("skipped", []), "skipped"):
                    if isinstance(s, dict):
                        skipped.append(f"{s.get('kernel')}: {s.get('reason')}")
                highlight = doc.get("kernel") if isinstance(doc.get("kernel"), str) else highlight
            elif "sites" in doc:
                reports = [doc]
            else:
                raise InputError(f"{name} is not a memsim report (no 'sites') or sector document (no 'reports')")
            for i, r in enumerate(reports):
                w = f"reports[{i}]" if reports is not None and r is not doc else "report"
                _obj(r, w)
                cells = []
                for j, s in enumerate(_list(r.get("sites"), f"{w}.sites")):
                    ws = f"{w}.sites[{j}]"
                    _obj(s, ws)
                    if s.get("space") != "global":
                        continue
                    cells.append((str(s.get("name", j)), _num(s, "sectors_per_request", ws),
                                  _num(s, "ideal_sectors_per_request", ws), _num(s, "requests", ws)))
                # Each report's own device where memsim --plot records it (several devices), else the document's.
                device = device_of(r) if isinstance(r.get("plot"), dict) else device_of(doc)
                rows.append((str(r.get("kernel", "?")), r.get("config"), device, cells))
        except Malformed as e:
            raise InputError(f"{name} is not a well-formed memsim report: {e}")
    if not any(cells for *_, cells in rows):
        raise InputError("nothing to draw: no global access site in the input")
    return rows, skipped, highlight


def sector_map_size(nrows):
    """The sector map's size in inches: a row a launch (a kernel asked, or the suite's fourteen)."""
    return (SECTOR_MAP_SIZE[0], min(SECTOR_MAP_SIZE[1], 2.6 + 0.5 * nrows))


def draw_sector_map(docs, dpi):
    rows, skipped, highlight = sector_rows(docs)
    ncols = max(len(c) for *_, c in rows)
    ratio = np.full((len(rows), ncols), np.nan)
    for r, (*_, cells) in enumerate(rows):
        for c, (_, spr, ideal, req) in enumerate(cells):
            ratio[r, c] = spr / ideal if ideal > 0 else (1.0 if req == 0 else np.nan)
    cmap = plt.get_cmap("Reds").copy()
    cmap.set_bad("#eeeeee")
    norm = mcolors.LogNorm(vmin=1, vmax=max(8.0, np.nanmax(ratio)))
    fig, ax = plt.subplots(figsize=sector_map_size(len(rows)), layout="constrained")
    im = ax.imshow(np.where(np.isnan(ratio), np.nan, np.maximum(ratio, 1.0)), cmap=cmap, norm=norm,
                   aspect="auto", interpolation="nearest")
    for r, (*_, cells) in enumerate(rows):
        for c, (site, spr, ideal, req) in enumerate(cells):
            dark = ratio[r, c] >= 4
            note = "no request" if req == 0 else f"{spr:.1f} / {ideal:.1f}"
            ax.text(c, r, plain(f"{site}\n{note}"), ha="center", va="center", fontsize=7,
                    color="white" if dark else "black", fontweight="bold" if ratio[r, c] > 1.05 else "normal")
    labels = []
    several = len({device for _, _, device, _ in rows}) > 1
    for kernel, cfg, device, _ in rows:
        t = cfg.get("tile") if isinstance(cfg, dict) else None
        tile = f"  tile {t.get('x')}x{t.get('y')}" if isinstance(t, dict) else ""
        on = f"  on {device}" if several else ""
        labels.append(plain(f"{'> ' if kernel == highlight and len(rows) > 1 else ''}{kernel}{tile}{on}"))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=8)
    for lab, (kernel, *_) in zip(ax.get_yticklabels(), rows):
        if kernel == highlight:
            lab.set_fontweight("bold")
    ax.set_xticks(range(ncols))
    ax.set_xticklabels([f"global site {c + 1}" for c in range(ncols)], fontsize=8)
    ax.set_xlabel("the kernel's global loads and stores in source order; cell: sectors per request / the ideal "
                  "(32-byte sectors the active bytes need)", fontsize=8)
    ax.set_ylabel("kernel", fontsize=8)
    bar = fig.colorbar(im, ax=ax, shrink=0.8, label="sectors per request / ideal (1 = no waste)")
    ticks = [t for t in (1, 2, 4, 8, 16, 32) if t <= norm.vmax]
    bar.set_ticks(ticks)
    bar.set_ticklabels([f"{t}x" for t in ticks])
    bar.ax.minorticks_off()
    first = rows[0]
    same = all(config_text(r[1]).split(", tile")[0] == config_text(first[1]).split(", tile")[0] for r in rows)
    shape = config_text(first[1]).split(", tile")[0] if same else "configurations as labelled"
    devices = " / ".join(dict.fromkeys(device for _, _, device, _ in rows))
    title = f"Global sectors per request against the ideal, per access site\n{devices}, {shape}"
    if skipped:
        title += "\nnot drawn, the launch refuses them: " + ", ".join(s.split(":")[0] for s in skipped)
    fig.suptitle(plain(title), fontsize=9)
    return fig
