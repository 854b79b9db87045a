// The map's slider: where each villager stands, and the food, at the chosen tick.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("day-data").textContent);
  var slider = document.getElementById("tick");
  var shown = document.getElementById("tick-now");
  if (!slider) { return; }
  var marks = document.querySelectorAll("svg.map g.at");
  var cells = document.querySelectorAll("svg.map rect.cell");

  function lastAtOrBefore(list, tick) {
    var lo = 0, hi = list.length - 1, best = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (list[mid][0] <= tick) { best = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return best;
  }

  function show(tick) {
    shown.textContent = String(tick);
    var at = [], byCell = {};
    for (var i = 0; i < marks.length; i++) {
      var pts = data.trails[i];
      var k = lastAtOrBefore(pts, tick);
      at.push(k < 0 ? null : pts[k]);
      if (k >= 0) {
        var key = pts[k][1] + "," + pts[k][2];
        (byCell[key] = byCell[key] || []).push(i);
      }
    }
    for (var n = 0; n < marks.length; n++) {
      if (at[n] === null) { marks[n].setAttribute("visibility", "hidden"); continue; }
      // villagers on one cell sit on a small ring around its centre, so none hides another
      var here = byCell[at[n][1] + "," + at[n][2]];
      var dx = 0, dy = 0, lx = 0.42, ly = 0.16;
      if (here.length > 1) {
        // and their names stand in a column to the cell's right, one line each
        var idx = here.indexOf(n);
        var a = 2 * Math.PI * idx / here.length;
        dx = 0.22 * Math.cos(a); dy = 0.22 * Math.sin(a);
        lx = 0.62 - dx; ly = 0.16 - dy + 0.46 * (idx - (here.length - 1) / 2);
      }
      var label = marks[n].querySelector("text");
      label.setAttribute("x", lx.toFixed(3));
      label.setAttribute("y", ly.toFixed(3));
      marks[n].setAttribute("visibility", "visible");
      marks[n].setAttribute("transform", "translate(" + (at[n][1] + 0.5 + dx).toFixed(3) + " " +
                            (at[n][2] + 0.5 + dy).toFixed(3) + ")");
    }
    if (data.food.length && data.foodMax) {
      var f = lastAtOrBefore(data.food, tick);
      var grams = data.food[Math.max(0, f)][1];
      for (var j = 0; j < cells.length; j++) {
        cells[j].setAttribute("fill-opacity", (0.85 * grams[j] / data.foodMax).toFixed(3));
      }
    }
  }

  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  show(parseInt(slider.value, 10));
}());
