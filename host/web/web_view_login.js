// The sign-in page's script (served without the key, as /ui/assets/login.js): a key handed over in the
// address's fragment — `ahctl ui` prints http://HOST:PORT/ui#key=KEY — is signed in with at once. A
// fragment never reaches a server or its logs; it is taken out of the address bar and the history
// before the form is sent.
(function () {
  var m = /^#key=([^&]+)$/.exec(window.location.hash);
  if (!m) return;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  var field = document.getElementById('key');
  if (!field) return;
  field.value = decodeURIComponent(m[1]);
  field.form.submit();
})();
