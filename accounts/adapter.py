"""allauth's hooks into sign-up."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django import forms

from accounts.forms import NAME_TAKEN
from accounts.models import User


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username: str, shallow: bool = False) -> str:
        # Players invite by username or display name: a new username may not be someone's display name.
        username = super().clean_username(username, shallow=shallow)
        if not shallow and User.objects.filter(display_name__iexact=username).exists():
            raise forms.ValidationError(NAME_TAKEN.format(name=username))
        return username
