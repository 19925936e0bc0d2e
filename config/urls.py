from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views
from accounts.forms import StaffSignInForm

admin.site.site_header = admin.site.site_title = f"{settings.SITE_NAME} administration"
admin.site.index_title = "Matches, players and notifications"
admin.site.login_form = StaffSignInForm

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/email/", account_views.email_addresses, name="account_email"),  # before allauth's own
    path("accounts/", include("allauth.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("chat.urls")),
    path("", include("ratings.urls")),
]

# With debug off: the page with the failure's reference, and ADMINS told (config/errors.py).
handler500 = "config.errors.server_error"
