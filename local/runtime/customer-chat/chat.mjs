// The customer's phone: sends through the local webhook (signed like Meta) and shows what the
// business answered, with each reply's delivery status, polling the local runtime.
const POLL_EVERY_MS = 700;

const list = document.getElementById('messages');
const conversation = document.getElementById('conversation');
const problem = document.getElementById('problem');
const customerInput = document.getElementById('customer');
const textInput = document.getElementById('text');
const shown = new Map();
let customer = new URLSearchParams(location.search).get('from') ?? '';

function showProblem(text) {
  problem.textContent = text;
  problem.hidden = text === '';
}

const clock = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** Adds the messages not shown yet and updates the status of those that are. */
function render(messages) {
  const atBottom = conversation.scrollTop + conversation.clientHeight >= conversation.scrollHeight - 8;
  for (const message of messages) {
    let item = shown.get(message.id);
    if (item === undefined) {
      item = document.createElement('li');
      item.className = message.author;
      const text = document.createElement('p');
      text.className = 'text';
      text.textContent = message.text;
      const meta = document.createElement('p');
      meta.className = 'meta';
      const time = document.createElement('time');
      time.dateTime = message.at;
      time.textContent = clock(message.at);
      const status = document.createElement('span');
      status.className = 'status';
      meta.append(time, ' · ', status);
      item.append(text, meta);
      list.append(item);
      shown.set(message.id, item);
    }
    item.querySelector('.status').textContent = message.status.replaceAll('_', ' ');
  }
  if (atBottom) conversation.scrollTop = conversation.scrollHeight;
}

async function refresh() {
  const asked = customer;
  const query = asked === '' ? '' : `?customer=${encodeURIComponent(asked)}`;
  const answer = await fetch(`/api/conversation${query}`);
  const body = await answer.json();
  // A poll that left before a switch answers for the customer shown before it.
  if (asked !== customer) return;
  if (!answer.ok) return showProblem(body.error);
  if (customer === '') {
    customer = body.customer;
    customerInput.value = customer;
  }
  document.getElementById('business-number').textContent = `+${body.business.displayPhoneNumber}`;
  render(body.messages);
}

function switchTo(next) {
  customer = next;
  shown.clear();
  list.replaceChildren();
  history.replaceState(null, '', `?from=${encodeURIComponent(next)}`);
  void refresh();
}

document.getElementById('identity').addEventListener('submit', (event) => {
  event.preventDefault();
  if (customerInput.value !== customer) switchTo(customerInput.value);
});

document.getElementById('composer').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = textInput.value.trim();
  if (text === '') return;
  textInput.value = '';
  const answer = await fetch('/api/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customer, text }) });
  if (!answer.ok) {
    const body = await answer.json().catch(() => ({}));
    textInput.value = text;
    return showProblem(`Not sent: ${body.error ?? `the webhook answered ${body.status ?? answer.status}`}`);
  }
  showProblem('');
  await refresh();
});

let offline = false;
async function poll() {
  try {
    await refresh();
    if (offline) showProblem('');
    offline = false;
  } catch (error) {
    offline = true;
    showProblem(`The local runtime is not answering (${error.message}): is npm start still running?`);
  }
}

customerInput.value = customer;
await poll();
setInterval(poll, POLL_EVERY_MS);
