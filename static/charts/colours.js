// Chart colours: the Okabe–Ito palette, one colour per request of the run, and the readable ink
// (black or white) for text on a fill. Charts never rely on colour alone (labels, patterns, shapes).
// Leaves out: the patterns drawn over fills (figure.js defs) and the CSS classes' own colours (charts.css).

// Okabe & Ito (2008), "Color Universal Design": eight colours that readers with any common form of
// colour-vision deficiency can tell apart. Charts never rely on colour alone (labels, patterns, shapes).
export const OKABE_ITO = {
  black: '#000000', orange: '#E69F00', sky: '#56B4E9', green: '#009E73',
  yellow: '#F0E442', blue: '#0072B2', vermillion: '#D55E00', purple: '#CC79A7',
};
const REQUEST_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#7F7F7F'];

// ── colours ───────────────────────────────────────────────────────────────
function luminance(hex) {
  const c = hex.replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(c.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** '#000' or '#fff', whichever reads better on `hex`. */
export function inkOn(hex) {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** The class that gives text on `hex` its readable ink (CSS beats fill attributes, so it is a class). */
export function inkClass(hex) { return inkOn(hex) === '#ffffff' ? 'ink-light' : 'ink-dark'; }

/** {id: {colour, ink, index}} for every request of the run, in REQUESTS order (ids beyond 8 repeat colours). */
export function requestColours(report) {
  const ids = ((report && report.config && report.config.REQUESTS) || []).map((r) => String(r.id));
  const map = new Map();
  ids.forEach((id, i) => {
    const colour = REQUEST_COLOURS[i % REQUEST_COLOURS.length];
    map.set(id, { colour, ink: inkOn(colour), index: i });
  });
  return (id) => map.get(String(id)) || { colour: '#7F7F7F', ink: '#ffffff', index: map.size };
}
