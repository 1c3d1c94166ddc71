// The three soft reward axes and their colours, shared by the runs list and the run page (without uPlot).
export const AXES = ['struct', 'pers', 'ped'];
// Colour-blind-safe (Okabe–Ito) blue, vermillion, bluish green.
export const AXIS_COLOR = { struct: '#0072b2', pers: '#d55e00', ped: '#009e73' };
