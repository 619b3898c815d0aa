'use strict';
/*
 * source: where `npm run test:node` (test/node/run.js) gets Node's own timer tests from.
 *
 * Owns finding a copy of Node's test/parallel/test-timers*.js and the test/common they load, for
 * the running version by default: from QTIMERS_NODE_SOURCE (a directory holding test/parallel
 * and test/common, such as an unpacked Node source tree; a .tar.gz or .tar.xz of Node's source;
 * or an http(s) URL of one), else from nodejs.org's tarball of process.version, checked against
 * that release's SHASUMS256.txt.  A tarball is unpacked once, keeping only the timer tests,
 * test/common, the test/fixtures files the timer tests name and src/node_version.h (which tells
 * the tests' version), into QTIMERS_NODE_TESTS_CACHE (default ~/.cache/qtimers-node-tests)/VERSION.
 * It must never write anywhere but that cache (a directory source is used where it is, as it
 * is), and never leave a half-unpacked copy where a later run would take it for a whole one.
 *
 * Also a command, for test/node/fetch-debian-source.sh: `node source.js unpack TARBALL DEST`.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { spawnSync } = require('child_process');

const CACHE_ROOT = process.env.QTIMERS_NODE_TESTS_CACHE || path.join(os.homedir(), '.cache', 'qtimers-node-tests');
// written last into an unpacked copy: a copy without it was interrupted and is unpacked again
const COMPLETE_MARK = '.qtimers-source';
const TARBALL_NAME = /\.(tar\.gz|tgz|tar\.xz|txz)$/;
const VERSION_IN_NAME = /(?:^|[^\d.])v?(\d+\.\d+\.\d+)(?![\d])/;
const REDIRECTS_FOLLOWED = 5;
const DOWNLOAD_TIMEOUT_MS = 120000;

const HOW_TO_GIVE_A_SOURCE =
  'Give Node\'s source another way with QTIMERS_NODE_SOURCE: a directory holding test/parallel and\n' +
  'test/common (an unpacked Node source tree), a node-vX.Y.Z.tar.gz or .tar.xz, or an http(s) URL of one.\n' +
  'Where only Debian\'s mirror is reachable:  QTIMERS_NODE_SOURCE=$(test/node/fetch-debian-source.sh) npm run test:node';

/* nodejs.org's source tarball of a release, version as process.version spells it ('v20.20.2') */
function releaseTarballUrl(version) {
  return `https://nodejs.org/dist/${version}/node-${version}.tar.gz`;
}

/*
 * getSource(spec, log) resolves to { dir, version, origin }: dir holds test/parallel and
 * test/common; version is the tests' Node version ('v20.19.2'), or null when nothing tells it.
 * spec is QTIMERS_NODE_SOURCE's value, or undefined for the running version's release tarball.
 */
async function getSource(spec, log) {
  if (!spec) {
    const url = releaseTarballUrl(process.version);
    const cached = cachedCopy(process.version);
    if (cached) return cached;
    log(`downloading ${url}`);
    let tarball;
    try {
      tarball = await download(url);
      await checkReleaseChecksum(url, tarball);
    } catch (err) {
      removeQuietly(tarball);
      throw new Error(`cannot get Node ${process.version}'s source from ${url}: ${err.message}\n${HOW_TO_GIVE_A_SOURCE}`);
    }
    try {
      return unpackToCache(tarball, url, process.version, log);
    } finally {
      removeQuietly(tarball);
    }
  }
  if (/^https?:\/\//i.test(spec)) {
    const guessed = versionInName(spec);
    const cached = guessed && cachedCopy(guessed);
    if (cached) return cached;
    log(`downloading ${spec}`);
    let tarball;
    try {
      tarball = await download(spec);
    } catch (err) {
      removeQuietly(tarball);
      throw new Error(`cannot download QTIMERS_NODE_SOURCE=${spec}: ${err.message}\n${HOW_TO_GIVE_A_SOURCE}`);
    }
    try {
      return unpackToCache(tarball, spec, guessed, log);
    } finally {
      removeQuietly(tarball);
    }
  }
  const location = path.resolve(spec);
  let stat;
  try {
    stat = fs.statSync(location);
  } catch (err) {
    throw new Error(`QTIMERS_NODE_SOURCE=${spec}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}\n${HOW_TO_GIVE_A_SOURCE}`);
  }
  if (stat.isDirectory()) {
    if (!holdsTests(location)) {
      throw new Error(`QTIMERS_NODE_SOURCE=${spec}: no test/parallel and test/common in this directory\n${HOW_TO_GIVE_A_SOURCE}`);
    }
    return { dir: location, version: readVersion(location), origin: location };
  }
  if (!TARBALL_NAME.test(location)) {
    throw new Error(`QTIMERS_NODE_SOURCE=${spec}: neither a directory nor a .tar.gz/.tar.xz\n${HOW_TO_GIVE_A_SOURCE}`);
  }
  const guessed = versionInName(path.basename(location));
  const cached = guessed && cachedCopy(guessed);
  if (cached) return cached;
  return unpackToCache(location, location, guessed, log);
}

function holdsTests(dir) {
  return isDirectory(path.join(dir, 'test', 'parallel')) && isDirectory(path.join(dir, 'test', 'common'));
}

function isDirectory(p) {
  try {
    return fs.statSync(p).isDirectory();
  } catch (err) {
    return false;
  }
}

/* 'node-v20.20.2.tar.gz', 'nodejs_20.19.2+dfsg.orig.tar.xz' -> 'v20.20.2'; null if none */
function versionInName(name) {
  const match = VERSION_IN_NAME.exec(name);
  return match ? 'v' + match[1] : null;
}

/* the version src/node_version.h of a source tree declares ('v20.19.2'), or null */
function readVersion(dir) {
  let header;
  try {
    header = fs.readFileSync(path.join(dir, 'src', 'node_version.h'), 'utf8');
  } catch (err) {
    return null;
  }
  const part = (name) => {
    const match = new RegExp(`^#define ${name} (\\d+)`, 'm').exec(header);
    return match && match[1];
  };
  const parts = [part('NODE_MAJOR_VERSION'), part('NODE_MINOR_VERSION'), part('NODE_PATCH_VERSION')];
  return parts.every(Boolean) ? 'v' + parts.join('.') : null;
}

function cachedCopy(version) {
  const dir = path.join(CACHE_ROOT, version);
  if (!fs.existsSync(path.join(dir, COMPLETE_MARK)) || !holdsTests(dir)) return null;
  return { dir, version: readVersion(dir) || version, origin: fs.readFileSync(path.join(dir, COMPLETE_MARK), 'utf8').trim() };
}

/* unpack into a fresh directory of the cache, then move it to CACHE_ROOT/VERSION */
function unpackToCache(tarball, origin, guessedVersion, log) {
  fs.mkdirSync(CACHE_ROOT, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(CACHE_ROOT, '.unpacking-'));
  try {
    log(`unpacking the timer tests of ${path.basename(tarball)}`);
    const unpacked = path.join(scratch, 'tests');
    unpack(tarball, unpacked, origin);
    const version = readVersion(unpacked) || guessedVersion || 'unknown-version';
    const dir = path.join(CACHE_ROOT, version);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(unpacked, dir);
    log(`cached in ${dir}`);
    return { dir, version: readVersion(dir), origin };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/*
 * unpack(tarball, dest): Node's timer tests, test/common, src/node_version.h and the fixtures
 * the timer tests name, from a tarball of Node's source, into dest (replaced if it exists).  The
 * tarball's top directory (node-vX.Y.Z/) may be there or not.  Uses the system's tar, which
 * recognizes gzip and xz by itself.
 */
function unpack(tarball, dest, origin) {
  const scratch = dest + '.tar';
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.mkdirSync(scratch, { recursive: true });
  try {
    extract(tarball, scratch, ['*test/parallel/test-timers*', '*test/common/*', '*src/node_version.h'], true);
    const root = findTestRoot(scratch);
    if (!root) throw new Error(`${tarball}: no test/parallel/test-timers*.js and test/common in it`);
    const fixtures = fixturesNamed(root);
    if (fixtures.length) {
      const prefix = path.relative(scratch, root);
      const patterns = fixtures.map((name) => (prefix ? prefix + '/' : '') + 'test/fixtures/' + name);
      // a fixture a test names but the tarball lacks fails that test, natively as well
      extract(tarball, scratch, patterns, false);
    }
    fs.writeFileSync(path.join(root, COMPLETE_MARK), (origin || tarball) + '\n');
    fs.rmSync(dest, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.renameSync(root, dest);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function extract(tarball, into, patterns, required) {
  const gnu = /GNU tar/.test(spawnSync('tar', ['--version'], { encoding: 'utf8' }).stdout || '');
  const args = ['-xf', tarball, '-C', into];
  // GNU tar takes member names literally unless told; bsdtar always reads them as patterns
  if (gnu) args.push('--wildcards');
  const result = spawnSync('tar', args.concat(patterns), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`cannot run tar: ${result.error.message}`);
  if (result.status !== 0 && required) {
    throw new Error(`tar ${args.join(' ')} failed (exit ${result.status}): ${result.stderr.trim().split('\n').slice(-3).join(' / ')}`);
  }
}

/* the shallowest directory under dir holding test/parallel and test/common */
function findTestRoot(dir) {
  let level = [dir];
  for (let depth = 0; depth < 4 && level.length; depth++) {
    const found = level.find(holdsTests);
    if (found) return found;
    level = level.flatMap((d) => fs.readdirSync(d, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'deps').map((entry) => path.join(d, entry.name)));
  }
  return null;
}

/* test/fixtures paths the timer tests name: fixtures.path('a', 'b.js') and the like, or '../fixtures/a/b.js' */
function fixturesNamed(root) {
  const names = new Set();
  const parallel = path.join(root, 'test', 'parallel');
  for (const file of fs.readdirSync(parallel).filter((name) => name.startsWith('test-timers'))) {
    const source = fs.readFileSync(path.join(parallel, file), 'utf8');
    for (const call of source.matchAll(/fixtures\.\w+\(([^)]*)\)/g)) {
      const parts = Array.from(call[1].matchAll(/(['"`])([^'"`]+)\1/g), (m) => m[2]);
      if (parts.length) names.add(parts.join('/'));
    }
    for (const literal of source.matchAll(/(['"`])\.\.\/fixtures\/([^'"`]+)\1/g)) names.add(literal[2]);
  }
  return Array.from(names).filter((name) => !name.split('/').includes('..'));
}

/* download(url) resolves to the path of a temporary file holding its body */
function download(url) {
  fs.mkdirSync(CACHE_ROOT, { recursive: true });
  const file = path.join(CACHE_ROOT, `.download-${process.pid}-${path.basename(new URL(url).pathname) || 'source'}`);
  return fetchTo(url, file, REDIRECTS_FOLLOWED).then(() => file, (err) => {
    removeQuietly(file);
    throw err;
  });
}

function fetchTo(url, file, redirectsLeft) {
  return new Promise((resolve, reject) => {
    const client = url.startsWith('https:') ? require('https') : require('http');
    const request = client.get(url, { timeout: DOWNLOAD_TIMEOUT_MS }, (response) => {
      const status = response.statusCode;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (redirectsLeft === 0) return reject(new Error('too many redirects'));
        return resolve(fetchTo(new URL(response.headers.location, url).href, file, redirectsLeft - 1));
      }
      if (status !== 200) {
        response.resume();
        return reject(new Error(`HTTP ${status}`));
      }
      const out = fs.createWriteStream(file);
      response.pipe(out);
      response.on('error', reject);
      out.on('error', reject);
      out.on('finish', resolve);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer in ${DOWNLOAD_TIMEOUT_MS / 1000} s`)));
    request.on('error', reject);
  });
}

/* a release tarball must have the SHA-256 its release's SHASUMS256.txt lists */
async function checkReleaseChecksum(url, tarball) {
  const sumsUrl = url.replace(/[^/]+$/, 'SHASUMS256.txt');
  const sumsFile = await download(sumsUrl);
  try {
    const name = path.basename(new URL(url).pathname);
    const line = fs.readFileSync(sumsFile, 'utf8').split('\n').find((l) => l.trim().endsWith('  ' + name));
    if (!line) throw new Error(`${name} is not listed in ${sumsUrl}`);
    const expected = line.trim().split(/\s+/)[0];
    const actual = crypto.createHash('sha256').update(fs.readFileSync(tarball)).digest('hex');
    if (actual !== expected) throw new Error(`SHA-256 ${actual}, where ${sumsUrl} says ${expected}`);
  } finally {
    removeQuietly(sumsFile);
  }
}

function removeQuietly(file) {
  if (file) fs.rmSync(file, { force: true });
}

module.exports = { getSource, releaseTarballUrl, readVersion, versionInName, unpack, fixturesNamed, CACHE_ROOT };

if (require.main === module) {
  const [command, tarball, dest] = process.argv.slice(2);
  if (command !== 'unpack' || !tarball || !dest) {
    console.error('usage: node test/node/source.js unpack TARBALL DEST');
    process.exit(2);
  }
  try {
    unpack(path.resolve(tarball), path.resolve(dest), path.resolve(tarball));
  } catch (err) {
    console.error(`source.js: ${err.message}`);
    process.exit(2);
  }
}
