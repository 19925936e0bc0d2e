from django.urls import path

from accounts import views

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("profile/data/", views.account_data, name="account_data"),
    path("profile/close/", views.account_close, name="account_close"),
    path("unsubscribe/<str:token>/", views.unsubscribe_view, name="unsubscribe"),
]
