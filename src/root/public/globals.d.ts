// The chart library, loaded as a classic script before the modules (index.html).
import type uPlotClass from 'uplot';

declare global {
  const uPlot: typeof uPlotClass;
}
