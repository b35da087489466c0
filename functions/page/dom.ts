/** A tiny element builder: text children are always text nodes, so API strings never become markup. */

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    // Through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
    else if (k === "style") el.style.cssText = String(v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

/** Replaces a container's content, keeping focus on an equivalent element when there was one. */
export function replace(container: HTMLElement, content: Node): void {
  const focusedId = document.activeElement?.id;
  container.replaceChildren(content);
  if (focusedId) document.getElementById(focusedId)?.focus();
}
