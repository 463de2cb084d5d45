// Vietnamese (the seed's language, the page's default) words of static/tools/steps.js and step-state.js: key -> text;
// {name} marks a value filled in by t(key, { name }) (static/words/i18n.js). en/steps.js has the same keys.
export default {
};
