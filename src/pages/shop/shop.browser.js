/**
 * The shop's script, served as /static/shop.js to the shop and checkout pages. The pages work
 * without it; it only counts the cart's reservation down (`#cart-timer`, its texts in the page's
 * language as data attributes) and, in the embed script's overlay (`iframe=1` inside a frame),
 * closes the overlay on Escape, which the host page cannot see (docs/embedding.md).
 */

const timer = document.getElementById("cart-timer");

/** "m:ss" of the milliseconds left. */
function clock(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function tick() {
  const left = Number(timer.dataset.expires) - Date.now();
  if (left <= 0) {
    timer.textContent = timer.dataset.expired ?? "";
    return;
  }
  timer.textContent = (timer.dataset.left ?? "").replace("{time}", clock(left));
  setTimeout(tick, 1000 - (Date.now() % 1000));
}

if (timer && Number.isFinite(Number(timer.dataset.expires)) && timer.dataset.left) {
  timer.setAttribute("role", "timer");
  tick();
}

const framed = new URLSearchParams(location.search).get("iframe") === "1" && window.parent !== window;
if (framed) {
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") window.parent.postMessage({ ticketingWidget: "close" }, "*");
  });
}
