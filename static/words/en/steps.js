// English words of static/tools/steps.js and step-state.js: key -> text, the same keys and {placeholders} as vi/steps.js
// (tests/js/words.test.mjs checks it).
export default {
};
