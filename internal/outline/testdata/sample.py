"""A module.

def not_a_function():
    pass
"""
import os


class Storage:
    '''Stores files.

    class NotAClass:
    '''

    def __init__(self, root):
        self.root = root

    @property
    def path(self):
        return os.path.join(self.root, "x")  # def not_this

    async def fetch(self, name):
        def helper():
            return name
        return helper()

    class Meta:
        ordering = ["name"]


def main(
    argv=None,
):
    return Storage("/tmp")
