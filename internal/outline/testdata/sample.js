const Hooks = {}

Hooks.Terminal = {
  mounted() {
    const paneId = this.el.dataset.paneId
    this._connect(paneId)
  },

  _connect(paneId) {
    return paneId
  },
}

function* ids() {
  yield 1
}

module.exports = { ids }
