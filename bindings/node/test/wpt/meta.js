// The `// META:` header of a WPT .any.js file: the scripts to load first, the variants (search
// strings) to run it with, and whether its timeout is long.
'use strict';

function parseMeta(source) {
  const meta = { title: null, scripts: [], variants: [], long: false, globals: [] };
  for (const line of source.split('\n')) {
    const m = /^\/\/ META: *([a-z]+)=(.*)$/.exec(line.trim());
    if (!m) {
      // The header is the file's leading comment block.
      if (line.trim() === '' || line.startsWith('//')) continue;
      break;
    }
    const [, key, value] = m;
    const v = value.trim();
    if (key === 'script') meta.scripts.push(v);
    else if (key === 'variant') meta.variants.push(v);
    else if (key === 'timeout') meta.long = v === 'long';
    else if (key === 'title') meta.title = v;
    else if (key === 'global') meta.globals = v.split(',').map((g) => g.trim());
  }
  return meta;
}

module.exports = { parseMeta };
