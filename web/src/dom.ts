// A tiny element builder: text always goes in as text (names come from strangers' bots).
type Child = Node | string | number | null | undefined | false;

export function h(tag: string, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function link(href: string, text: string): HTMLElement {
  return h("a", { href }, text);
}

export function table(head: (string | [string, string])[], rows: Child[][]): HTMLElement {
  const th = head.map((c) => (Array.isArray(c) ? h("th", { class: c[1], scope: "col" }, c[0]) : h("th", { scope: "col" }, c)));
  const body = rows.map((r) => h("tr", {}, ...r.map((c, i) => h("td", { class: Array.isArray(head[i]) ? (head[i] as [string, string])[1] : undefined }, c))));
  return h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ...th)), h("tbody", {}, ...body)));
}

export function when(ms: bigint | number): string {
  const n = Number(ms);
  return n ? new Date(n).toLocaleString() : "";
}
