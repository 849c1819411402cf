// Sounds at a table: a chime when it becomes your turn, a soft click when a card is
// played. Made with the Web Audio API (no files to load); off until the reader turns
// them on (browsers allow sound only after a gesture), and the switch says whether they
// are on and remembers it.
import { h } from "./dom";
import { TableStatus, type TableView } from "./gen/skat/v1/skat_pb";
import { t } from "./i18n";

const KEY = "skat-sound";
let context: AudioContext | undefined;

/** Whether sounds are on (the reader's choice, kept). */
export function soundOn(): boolean {
  return localStorage.getItem(KEY) === "on";
}

function tone(frequency: number, ms: number, volume: number) {
  if (!soundOn()) return;
  try {
    context ??= new AudioContext();
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(volume, context.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, context.currentTime + ms / 1000);
    osc.connect(gain).connect(context.destination);
    osc.start();
    osc.stop(context.currentTime + ms / 1000);
  } catch {
    // No audio here (a headless browser, a policy): silence is no error.
  }
}

/** It became your turn. */
export function yourTurn() {
  tone(660, 180, 0.15);
  window.setTimeout(() => tone(880, 220, 0.12), 140);
}

/** A card was played. */
export function cardPlayed() {
  tone(220, 60, 0.08);
}

/** The switch: says whether sounds are on; a press turns them on or off. */
export function soundSwitch(): HTMLElement {
  const b = h("button", { type: "button", id: "sound", "aria-pressed": String(soundOn()) }, t(soundOn() ? "table.soundOn" : "table.soundOff"));
  b.onclick = () => {
    localStorage.setItem(KEY, soundOn() ? "off" : "on");
    b.setAttribute("aria-pressed", String(soundOn()));
    b.textContent = t(soundOn() ? "table.soundOn" : "table.soundOff");
    if (soundOn()) cardPlayed();
  };
  return b;
}

/** Cues for a table's views as they come: "your turn" when it becomes `seat`'s turn, a
 * click when the cards played grow. */
export function cueTracker(): (v: TableView, seat: number | undefined) => void {
  let wasMyTurn = false;
  let cardsSeen = -1;
  return (v, seat) => {
    const d = v.deal;
    const mine = seat !== undefined && d?.seatToMove === seat && v.status === TableStatus.PLAYING;
    if (mine && !wasMyTurn) yourTurn();
    wasMyTurn = mine;
    const played = d ? d.tricks.length * 3 + (d.currentTrick?.cards.length ?? 0) + d.number * 100 : -1;
    if (cardsSeen >= 0 && played > cardsSeen) cardPlayed();
    cardsSeen = played;
  };
}
