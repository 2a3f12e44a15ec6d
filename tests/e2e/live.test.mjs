// End-to-end (issue 59): Live. `a2a-lab serve --agent URL` (the binary with
// the page inside) relays the page to real agents on 127.0.0.1: the SDK
// agents of tests/agents and the scripted one (hostile.py). The page opened
// at the URL it prints connects, runs the doctor, sends a message, and shows
// the task judged as `check` judges the session it downloads; List shows
// the agent's tasks (off, with why, on 0.3). The relay
// refuses other origins, no token and a rebinding Host; an agent's HTML is
// text; a credential given with --header reaches neither the page nor the
// session.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { CLI, DIST, OUT, ROOT, launch, open, serve, started, stopStarted, tableRows } from './harness.mjs';

after(stopStarted);

const URL_LINE = /http:\/\/127\.0\.0\.1:\d+/;
const agent = (sdk, ...more) => started(`${ROOT}tests/agents/start.sh`, [sdk, '1.0', ...more], URL_LINE, { A2A_AGENT_STEP_MS: '150' });
const scripted = (kind) => started(`${ROOT}tests/agents/hostile.py`, [kind], URL_LINE);
const gateway = (upstream) => started(`${ROOT}tests/agents/bearer.py`, [upstream], URL_LINE);
const live = (url, ...more) => started(CLI, ['serve', '--port', '0', '--agent', url, ...more], /http:\/\/127\.0\.0\.1:\d+\/\?live=[0-9a-f]+/);

/** Opens the printed URL and waits for the doctor: every step holds. */
async function connected(context, url, viewport) {
  const opened = await open(context, url, viewport);
  const { page } = opened;
  await page.waitForSelector('.live__steps');
  const steps = await page.$$eval('.live__step', (li) => li.map((l) => [l.className, l.textContent]));
  assert.equal(steps.length, 4, JSON.stringify(steps));
  assert.ok(steps.every(([c]) => /--(ok|warn)/.test(c)), JSON.stringify(steps));
  return opened;
}

/** Waits until the live task's line matches `state`. */
const taskIs = (page, state) => page.waitForFunction(
  (s) => new RegExp(s).test(document.querySelector('.live__task')?.textContent || ''), state.source, { timeout: 20000 });

/** The session as the page downloads it, and what `check` says of it. */
async function download(page, name) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click('button:text-is("Download session")')]);
  const path = `${OUT}/${name}.jsonl`;
  await file.saveAs(path);
  let report;
  try {
    report = JSON.parse(execFileSync(CLI, ['check', path, '--json'], { encoding: 'utf8' }));
  } catch (e) {
    // Exit 1: findings; the report is on stdout all the same.
    report = JSON.parse(e.stdout);
  }
  return { text: readFileSync(path, 'utf8'), findings: report.findings.map((f) => f.code) };
}

const shownFindings = (page) => page.$$eval('.capture__findings li', (li) => li.map((l) => l.textContent));

for (const [sdk, more, binding] of [
  ['python', ['none'], 'JSON-RPC'],
  ['js', ['none', 'rest=only'], 'HTTP+JSON'],
  ['rust', ['none', 'grpc=only'], 'GRPC'],
]) {
  test(`live on ${sdk}'s agent over ${binding}: a task streamed, every event judged, the session read by check alike`, async () => {
    const url = await live(await agent(sdk, ...more));
    const context = await launch();
    try {
      const { page, log } = await connected(context, url);
      assert.match(await page.textContent('.live__steps'), new RegExp(binding.replace('+', '\\+')));
      await page.click('button:text-is("Send as a new task")');
      await taskIs(page, /COMPLETED/);
      const rows = await tableRows(page);
      assert.ok(rows.length >= 5, JSON.stringify(rows));
      assert.ok(rows.some((r) => r.join(' ').includes('COMPLETED')), JSON.stringify(rows));
      assert.deepEqual(await shownFindings(page), []);
      await page.click('button:text-is("Get")');
      await page.waitForFunction(() => document.querySelectorAll('.live__call').length === 2);
      const session = await download(page, `live-${sdk}`);
      assert.deepEqual(session.findings, []);
      const methods = session.text.trim().split('\n').map((l) => JSON.parse(l).method).filter(Boolean);
      assert.deepEqual(methods, ['SendStreamingMessage', 'GetTask']);
      if (sdk === 'python') {
        await page.screenshot({ path: `${OUT}/live-desktop.png` });
        const phone = await connected(context, url, { width: 390, height: 844 });
        const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
        await phone.page.screenshot({ path: `${OUT}/live-phone.png`, fullPage: true });
        assert.deepEqual(phone.log.errors, []);
      }
      assert.deepEqual(log.errors, []);
    } finally {
      await context.close();
    }
  });
}

test('a defect shows live as it happens, and in check of the session', async () => {
  const url = await live(await agent('python', 'late-artifact'));
  const context = await launch();
  try {
    const { page, log } = await connected(context, url);
    await page.click('button:text-is("Send as a new task")');
    await page.waitForFunction(() => /after-terminal/.test(document.querySelector('.capture__findings')?.textContent || ''), null, { timeout: 20000 });
    const session = await download(page, 'live-late-artifact');
    assert.ok(session.findings.includes('after-terminal'), JSON.stringify(session.findings));
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('push live: the POSTs in the webhook lane beside the stream, pushed-after-terminal as it happens, and check of both files alike', async () => {
  const url = await live(await agent('python', 'late-artifact', 'push=on'));
  const context = await launch();
  try {
    const { page, log } = await connected(context, url);
    await page.click('button:text-is("Send as a new task")');
    await page.waitForFunction(() => /pushed-after-terminal/.test(document.querySelector('.capture__findings')?.textContent || ''), null, { timeout: 20000 });
    const rows = await tableRows(page);
    const posts = rows.filter((r) => r[2] === 'webhook');
    assert.ok(posts.length >= 6, JSON.stringify(rows));
    assert.ok(posts.every((r) => / → 200$/.test(r[3])), JSON.stringify(posts));
    const lanes = await page.$$eval('.timeline__lane text', (ts) => ts.map((t) => t.textContent));
    assert.equal(lanes.at(-1), 'webhook');
    assert.match(await page.textContent('.live__webhook'), /a2a-lab check a2a-lab-session\.jsonl --webhook a2a-lab-pushes\.jsonl/);
    // The config went with the message; its token did not reach the page.
    const session = await download(page, 'live-push');
    assert.match(session.text, /taskPushNotificationConfig/);
    assert.match(session.text, /the webhook's token, kept by the relay/);
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('button:text-is("Download webhook log")')]);
    const pushes = `${OUT}/live-push-webhook.jsonl`;
    await file.saveAs(pushes);
    let report;
    try {
      report = JSON.parse(execFileSync(CLI, ['check', `${OUT}/live-push.jsonl`, '--webhook', pushes, '--json'], { encoding: 'utf8' }));
    } catch (e) {
      report = JSON.parse(e.stdout);
    }
    const codes = report.findings.map((f) => f.code);
    assert.deepEqual([...new Set(codes)], ['after-terminal', 'pushed-after-terminal']);
    assert.equal(report.pushes.posts, readFileSync(pushes, 'utf8').trim().split('\n').length);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('a task that asks for input is continued by a reply with its taskId and contextId; a new task there is a finding', async () => {
  const context = await launch();
  try {
    for (const [kind, expected] of [['input', []], ['input-new-task', ['continuation-new-task']]]) {
      const url = await live(await scripted(kind));
      const { page, log } = await connected(context, url);
      await page.click('button:text-is("Send as a new task")');
      await taskIs(page, /INPUT_REQUIRED/);
      await page.fill('.live__message textarea >> nth=0', 'BBS-1042');
      await page.click('.live__reply');
      await page.waitForFunction(() => document.querySelectorAll('.live__call').length === 2);
      const session = await download(page, `live-${kind}`);
      const sent = session.text.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.method);
      assert.equal(sent.length, 2, session.text);
      const task = JSON.parse(session.text.split('\n')[1]).result.task;
      assert.equal(sent[1].params.message.taskId, task.id, session.text);
      assert.equal(sent[1].params.message.contextId, task.contextId, session.text);
      if (kind === 'input') await taskIs(page, /COMPLETED/);
      assert.deepEqual(session.findings.filter((c) => c.startsWith('continuation')), expected, session.text);
      assert.deepEqual(log.errors, []);
      await page.close();
    }
  } finally {
    await context.close();
  }
});

test('cancel, and drop the stream and resubscribe, from the page', async () => {
  const url = await live(await started(`${ROOT}tests/agents/start.sh`, ['python', '1.0', 'none'], URL_LINE, { A2A_AGENT_STEP_MS: '1200' }));
  const context = await launch();
  try {
    const { page, log } = await connected(context, url);
    await page.click('button:text-is("Send as a new task")');
    await taskIs(page, /WORKING/);
    await page.click('button:text-is("Drop the stream and resubscribe")');
    await taskIs(page, /COMPLETED/);
    const calls = await page.$$eval('.live__call summary', (s) => s.map((x) => x.textContent));
    assert.ok(calls.some((c) => /SubscribeToTask/.test(c)), JSON.stringify(calls));
    assert.ok(calls.some((c) => /SendStreamingMessage.*dropped/.test(c)), JSON.stringify(calls));
    await page.click('button:text-is("Send as a new task")');
    await taskIs(page, /WORKING/);
    await page.click('button:text-is("Cancel")');
    await taskIs(page, /CANCELED/);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('List, on once connected, lists the agent\'s tasks in the call log as text; off on 0.3 with why', async () => {
  const context = await launch();
  try {
    const url = await live(await agent('python', 'none'));
    const { page, log } = await connected(context, url);
    // It needs no task: on before any message.
    assert.equal(await page.isEnabled('button:text-is("List")'), true);
    await page.click('button:text-is("Send as a new task")');
    await taskIs(page, /COMPLETED/);
    const line = await page.textContent('.live__task');
    const id = line.match(/^Task (\S+):/)[1];
    await page.click('button:text-is("List")');
    await page.waitForFunction(() => /ListTasks.*ended/.test(document.querySelector('.live__call summary')?.textContent || ''), null, { timeout: 20000 });
    await page.click('.live__call summary >> nth=0');
    const answer = await page.textContent('.live__call >> nth=0');
    assert.ok(answer.includes(id), answer);
    // The task followed is still the session's own; a listed task is no finding.
    assert.equal(await page.textContent('.live__task'), line);
    assert.deepEqual(await shownFindings(page), []);
    const session = await download(page, 'live-list');
    assert.deepEqual(session.findings, []);
    const methods = session.text.trim().split('\n').map((l) => JSON.parse(l).method).filter(Boolean);
    assert.deepEqual(methods, ['SendStreamingMessage', 'ListTasks']);
    assert.deepEqual(log.errors, []);
    await page.close();
    // An agent that speaks only 0.3: List is off, and the relay says why.
    const old = await open(context, await live(await scripted('card-03-no-skills')));
    await old.page.waitForSelector('.live__steps');
    assert.equal(await old.page.isEnabled('button:text-is("List")'), false);
    assert.match(await old.page.textContent('.live__controls'), /0\.3 has no ListTasks/);
    assert.deepEqual(old.log.errors, []);
  } finally {
    await context.close();
  }
});

test('an agent\'s card and answers holding HTML and script are shown as text, and nothing runs', async () => {
  const url = await live(await scripted('html'));
  const context = await launch();
  try {
    const { page, log } = await connected(context, url);
    await page.click('button:text-is("Send as a new task")');
    await taskIs(page, /COMPLETED/);
    await page.click('.live__card summary');
    assert.match(await page.textContent('.live__card pre'), /<script>window.__pwned=1<\/script>/);
    await page.click('.live__call summary');
    assert.match(await page.textContent('.live__call'), /onerror/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.$$eval('img[src="x"], .live script, .capture script', (e) => e.length), 0);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

/** One raw request to the relay: its status. */
function ask(url, path, headers) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path, method: 'GET', headers }, (res) => { res.resume(); resolve(res.statusCode); });
    request.on('error', reject);
    request.end();
  });
}

test('the relay refuses another origin, no token, a wrong token and a rebinding Host', async () => {
  const url = await live(await scripted('clean'));
  const token = new URL(url).searchParams.get('live');
  const { port } = new URL(url);
  assert.equal(await ask(url, '/live/connect', { 'X-A2A-Lab-Token': token }), 200);
  assert.equal(await ask(url, '/live/connect', {}), 403);
  assert.equal(await ask(url, '/live/connect', { 'X-A2A-Lab-Token': `${token.slice(1)}0` }), 403);
  assert.equal(await ask(url, '/live/connect', { 'X-A2A-Lab-Token': token, Host: `rebound.example:${port}` }), 403);
  assert.equal(await ask(url, '/live/connect', { 'X-A2A-Lab-Token': token, Origin: 'http://evil.example' }), 403);
  // A page on another origin, in the same browser, that knows the token.
  const other = await serve(DIST);
  const context = await launch();
  try {
    const { page } = await open(context, other.url);
    const tried = await page.evaluate(async ([relay, t]) => {
      try {
        const r = await fetch(`${relay}live/connect`, { headers: { 'X-A2A-Lab-Token': t } });
        return `answered ${r.status}`;
      } catch (e) {
        return `refused: ${e.name}`;
      }
    }, [url.replace(/\?.*/, ''), token]);
    assert.match(tried, /^refused/);
  } finally {
    await context.close();
    other.close();
  }
});

test('a credential given with --header reaches neither the page nor the session', async () => {
  const secret = 's3cret-test-token';
  const url = await live(await gateway(await agent('python', 'none')), '--header', `Authorization: Bearer ${secret}`);
  const context = await launch();
  try {
    const bodies = [];
    const { page, log } = await connected(context, url);
    page.on('response', async (r) => { try { bodies.push(await r.text()); } catch { /* a stream cut */ } });
    await page.click('button:text-is("Send as a new task")');
    await taskIs(page, /COMPLETED/);
    const session = await download(page, 'live-credential');
    assert.deepEqual(session.findings, []);
    assert.ok(!session.text.includes(secret));
    assert.ok(!(await page.content()).includes(secret));
    assert.ok(bodies.length > 0 && bodies.every((b) => !b.includes(secret)));
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('a stream of 10,000 events is judged as it arrives, each event once, as check judges the session', async () => {
  const url = await live(await scripted('long'));
  const context = await launch();
  try {
    const { page, log } = await connected(context, url);
    await page.click('button:text-is("Send as a new task")');
    await page.waitForFunction(() => /COMPLETED/.test(document.querySelector('.live__task')?.textContent || '')
      && [...document.querySelectorAll('.capture__tasks td')].some((td) => td.textContent === '10000'), null, { timeout: 60000 });
    // The trace table holds a window of the rows, the last one the end.
    const rows = await tableRows(page);
    assert.ok(rows.length <= 60 && rows.at(-1).join(' ').includes('COMPLETED'), JSON.stringify(rows.at(-1)));
    assert.deepEqual(await shownFindings(page), []);
    const session = await download(page, 'live-long');
    assert.deepEqual(session.findings, []);
    // The request, then every answer once.
    assert.equal(session.text.trim().split('\n').length, 1 + 10000);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});
