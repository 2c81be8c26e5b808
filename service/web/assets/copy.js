// Copy buttons: `data-copy` names the element whose text goes to the clipboard.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (source === null) return;
    try {
      await navigator.clipboard.writeText(source.textContent ?? '');
      const label = button.textContent;
      button.textContent = button.dataset.copied ?? label;
      setTimeout(() => { button.textContent = label; }, 2000);
    } catch {
      // No clipboard access (plain HTTP on another host): select the text for a manual copy.
      window.getSelection()?.selectAllChildren(source);
    }
  });
}
