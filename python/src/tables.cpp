#include "tables.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace py = pybind11;

namespace cutrace::python {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// One column: its name and values, numbers or text.
template <class T> struct Column {
  explicit Column(const char *name) : name(name) {}
  const char *name;
  std::vector<T> values;
  void put(py::dict &out) const {
    if constexpr (std::is_same_v<T, std::string>) {
      py::list texts(values.size());
      for (size_t i = 0; i < values.size(); ++i)
        texts[i] = py::str(values[i]);
      out[name] = texts;
    } else if constexpr (std::is_same_v<T, bool>) { // vector<bool> holds bits, not bools
      py::array_t<bool> flags(py::ssize_t(values.size()));
      bool *to = flags.mutable_data();
      for (size_t i = 0; i < values.size(); ++i)
        to[i] = values[i];
      out[name] = flags;
    } else {
      out[name] = py::array_t<T>(py::ssize_t(values.size()), values.data());
    }
  }
};

template <class... Cols> py::dict dict_of(const Cols &...columns) {
  py::dict out;
  (columns.put(out), ...);
  return out;
}

// Where a launch's trace times (ns since Trace::origin_ns) and raw globaltimer values fall on the
// run's axis.
struct Axis {
  double offset_ns;
  uint64_t origin_ns;
  double raw(uint64_t globaltimer_ns) const {
    return offset_ns + double(int64_t(globaltimer_ns - origin_ns));
  }
};

Axis axis_of(const RunLaunch &l) { return {l.offset_ns, l.trace.origin_ns}; }

const std::string &lane_name(const DecodeMap &map, uint32_t lane) {
  static const std::string unknown = "?";
  return lane < map.lanes.size() ? map.lanes[lane] : unknown;
}

const std::string &site_loc(const DecodeMap &map, uint32_t site) {
  static const std::string unknown;
  const Site *s = map.site(site);
  return s ? s->loc : unknown;
}

// Calls visit(launch, map) for each selected launch, its records decoded, one at a time.
template <class Visit> void each_launch(const RunFile &file, const Selection &chosen, Visit visit) {
  for (size_t index : file.select(chosen)) {
    const RunLaunch l = file.detailed(index);
    visit(l, file.run().maps[l.map]);
  }
}

} // namespace

py::dict launches_table(const RunFile &file) {
  Column<uint64_t> sequence{"sequence"}, stream{"stream"}, ctas{"ctas"}, dropped{"dropped_events"};
  Column<std::string> kernel{"kernel"};
  Column<uint32_t> device{"device"}, launch_index{"launch_index"}, gx{"grid_x"}, gy{"grid_y"},
      gz{"grid_z"}, bx{"block_x"}, by{"block_y"}, bz{"block_z"}, never_ended{"rows_never_ended"};
  Column<bool> in_graph{"in_graph"}, decoded{"decoded"}, complete{"complete"};
  Column<double> begin{"begin_ns"}, end{"end_ns"}, enqueue{"enqueue_ns"}, offset{"offset_ns"};
  for (const RunLaunch &l : file.run().launches) {
    sequence.values.push_back(l.sequence);
    kernel.values.push_back(file.kernel(l));
    device.values.push_back(l.device);
    stream.values.push_back(l.stream);
    launch_index.values.push_back(l.launch_index);
    in_graph.values.push_back(l.in_graph);
    for (auto [col, v] : {std::pair{&gx, l.grid[0]}, {&gy, l.grid[1]}, {&gz, l.grid[2]},
                          {&bx, l.block[0]}, {&by, l.block[1]}, {&bz, l.block[2]}})
      col->values.push_back(v);
    ctas.values.push_back(uint64_t(l.grid[0]) * l.grid[1] * l.grid[2]);
    begin.values.push_back(l.begin_ns);
    end.values.push_back(l.end_ns);
    enqueue.values.push_back(l.enqueue_ns ? *l.enqueue_ns : kNone);
    offset.values.push_back(l.offset_ns);
    // Read without records, a launch's decode problems are not known yet: its row headers are.
    const Completeness gaps = completeness_of(l);
    decoded.values.push_back(l.trace.ok());
    complete.values.push_back(gaps.complete());
    dropped.values.push_back(gaps.dropped_events);
    never_ended.values.push_back(gaps.rows_never_ended);
  }
  return dict_of(sequence, kernel, device, stream, launch_index, in_graph, gx, gy, gz, bx, by, bz,
                 ctas, begin, end, enqueue, offset, decoded, complete, dropped, never_ended);
}

py::dict rows_table(const RunFile &file, const Selection &chosen) {
  Column<uint64_t> launch{"launch"};
  Column<uint32_t> row{"row"}, cta{"cta"}, row_in_cta{"row_in_cta"}, group{"group"},
      smid{"smid"}, attempted{"attempted"}, stored{"stored"}, dropped{"dropped"},
      slices{"slices"}, instants{"instants"};
  Column<int64_t> slice{"slice"}; // -1: a TRACE_GROUP row
  Column<std::string> label{"label"}, rate_source{"ghz_source"};
  Column<bool> started{"started"}, closed{"closed"};
  Column<double> start{"start_ns"}, end{"end_ns"}, ghz{"ghz"};
  each_launch(file, chosen, [&](const RunLaunch &l, const DecodeMap &) {
    const Axis axis = axis_of(l);
    for (const Row &r : l.trace.rows) {
      launch.values.push_back(l.sequence);
      row.values.push_back(r.index);
      cta.values.push_back(r.cta);
      row_in_cta.values.push_back(r.row_in_cta);
      group.values.push_back(r.group);
      slice.values.push_back(r.sliced() ? int64_t(r.slice) : -1);
      label.values.push_back(r.label);
      smid.values.push_back(r.smid);
      started.values.push_back(r.started);
      closed.values.push_back(r.closed);
      start.values.push_back(r.started ? axis.raw(r.start_ns) : kNone);
      end.values.push_back(r.closed ? axis.raw(r.end_ns) : kNone);
      attempted.values.push_back(r.attempted);
      stored.values.push_back(r.stored);
      dropped.values.push_back(r.dropped);
      ghz.values.push_back(r.ghz);
      rate_source.values.push_back(rate_source_name(r.ghz_source));
      slices.values.push_back(uint32_t(r.slices.size()));
      instants.values.push_back(uint32_t(r.instants.size()));
    }
  });
  return dict_of(launch, row, cta, row_in_cta, group, slice, label, smid, started, closed, start,
                 end, attempted, stored, dropped, ghz, rate_source, slices, instants);
}

py::dict slices_table(const RunFile &file, const Selection &chosen) {
  Column<uint64_t> launch{"launch"}, begin_cycles{"begin_cycles"}, end_cycles{"end_cycles"};
  Column<uint32_t> row{"row"}, cta{"cta"}, smid{"smid"}, site{"site"};
  Column<std::string> label{"label"}, name{"name"}, lane{"lane"}, loc{"loc"};
  Column<int32_t> payload{"payload"};
  Column<double> begin{"begin_ns"}, end{"end_ns"}, duration{"duration_ns"};
  Column<bool> incomplete{"incomplete"};
  each_launch(file, chosen, [&](const RunLaunch &l, const DecodeMap &map) {
    for (const Row &r : l.trace.rows)
      for (const Slice &s : r.slices) {
        launch.values.push_back(l.sequence);
        row.values.push_back(r.index);
        cta.values.push_back(r.cta);
        smid.values.push_back(r.smid);
        label.values.push_back(r.label);
        name.values.push_back(s.name);
        lane.values.push_back(lane_name(map, s.lane));
        payload.values.push_back(s.payload);
        begin.values.push_back(l.offset_ns + s.begin_ns);
        end.values.push_back(l.offset_ns + s.end_ns);
        duration.values.push_back(s.end_ns - s.begin_ns);
        begin_cycles.values.push_back(s.begin_cycles);
        end_cycles.values.push_back(s.end_cycles);
        incomplete.values.push_back(s.incomplete);
        site.values.push_back(s.site);
        loc.values.push_back(site_loc(map, s.site));
      }
  });
  return dict_of(launch, row, cta, smid, label, name, lane, payload, begin, end, duration,
                 begin_cycles, end_cycles, incomplete, site, loc);
}

py::dict instants_table(const RunFile &file, const Selection &chosen) {
  Column<uint64_t> launch{"launch"}, cycles{"cycles"};
  Column<uint32_t> row{"row"}, cta{"cta"}, smid{"smid"}, site{"site"};
  Column<std::string> label{"label"}, name{"name"}, lane{"lane"}, loc{"loc"};
  Column<int32_t> payload{"payload"};
  Column<double> at{"ns"};
  each_launch(file, chosen, [&](const RunLaunch &l, const DecodeMap &map) {
    for (const Row &r : l.trace.rows)
      for (const Instant &i : r.instants) {
        launch.values.push_back(l.sequence);
        row.values.push_back(r.index);
        cta.values.push_back(r.cta);
        smid.values.push_back(r.smid);
        label.values.push_back(r.label);
        name.values.push_back(i.name);
        lane.values.push_back(lane_name(map, i.lane));
        payload.values.push_back(i.payload);
        at.values.push_back(l.offset_ns + i.ns);
        cycles.values.push_back(i.cycles);
        site.values.push_back(i.site);
        loc.values.push_back(site_loc(map, i.site));
      }
  });
  return dict_of(launch, row, cta, smid, label, name, lane, payload, at, cycles, site, loc);
}

py::dict flows_table(const RunFile &file, const Selection &chosen) {
  Column<uint64_t> launch{"launch"}, at_cycles{"at_cycles"};
  Column<uint32_t> cta{"cta"}, src_row{"src_row"}, src_slice{"src_slice"}, dst_row{"dst_row"},
      dst_slice{"dst_slice"};
  Column<std::string> src_name{"src_name"}, dst_name{"dst_name"};
  Column<double> src_end{"src_end_ns"}, dst_begin{"dst_begin_ns"}, at{"at_ns"};
  each_launch(file, chosen, [&](const RunLaunch &l, const DecodeMap &) {
    for (const Flow &f : l.trace.flows) {
      const Row &sr = l.trace.rows.at(f.src.row), &dr = l.trace.rows.at(f.dst.row);
      const Slice &s = sr.slices.at(f.src.slice), &d = dr.slices.at(f.dst.slice);
      launch.values.push_back(l.sequence);
      cta.values.push_back(sr.cta);
      src_row.values.push_back(sr.index);
      src_slice.values.push_back(f.src.slice);
      dst_row.values.push_back(dr.index);
      dst_slice.values.push_back(f.dst.slice);
      src_name.values.push_back(s.name);
      dst_name.values.push_back(d.name);
      src_end.values.push_back(l.offset_ns + s.end_ns);
      dst_begin.values.push_back(l.offset_ns + d.begin_ns);
      at.values.push_back(l.offset_ns + f.at_ns);
      at_cycles.values.push_back(f.at_cycles);
    }
  });
  return dict_of(launch, cta, src_row, src_slice, dst_row, dst_slice, src_name, dst_name, src_end,
                 dst_begin, at, at_cycles);
}

} // namespace cutrace::python
