(function () {
  // The search box: hidden until this runs, so a page without scripts
  // shows only what works there (the letter index). It filters the cards
  // by name and description, every word anywhere, as typed.
  var box = document.getElementById("search");
  var input = document.getElementById("q");
  var count = document.getElementById("shown");
  var cards = document.querySelectorAll(".toc li");
  if (!box || !input) return;
  var text = [];
  for (var i = 0; i < cards.length; i++) text.push(cards[i].textContent.toLowerCase());
  box.hidden = false;
  function filter() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    for (var i = 0; i < cards.length; i++) {
      var hit = words.every(function (w) { return text[i].indexOf(w) >= 0; });
      cards[i].hidden = !hit;
      if (hit) shown++;
    }
    count.textContent = words.length ? shown + " of " + cards.length : "";
  }
  input.addEventListener("input", filter);
  if (input.value) filter();
})();
